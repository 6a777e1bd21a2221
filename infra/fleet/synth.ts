import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FleetError } from './errors.ts';
import type { CfnTemplate } from './stateful.ts';
import type { WorkerInput, WorkerResult } from './synth-worker.ts';
import type { TenantFile } from './tenant-files.ts';

/** The repository the fleet command runs from (its tsx and worker build every tree's stacks). */
export const TOOL_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKER = join(TOOL_ROOT, 'infra', 'fleet', 'synth-worker.ts');
const TSX_LOADER = pathToFileURL(createRequire(join(TOOL_ROOT, 'package.json')).resolve('tsx')).href;

/** What to synthesise, and where. */
export interface SynthTreeOptions {
  /** The root of the tree whose code builds the stacks (the working tree, or a baseline worktree). */
  treeDir: string;
  tenants: TenantFile[];
  stage: string;
  outDir: string;
  checks: boolean;
  validation: boolean;
}

/** One tenant synthesised: its stack and template, or why not. */
export type SynthResult = WorkerResult & { file: string };

/** Reads a synthesised (or stored) template. */
export const readTemplate = (file: string): CfnTemplate =>
  JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate;

/**
 * Synthesises tenants with a tree's own code, in a child process at the tree's root (its modules, its
 * `package.json` imports, a module cache of its own), each tenant in an app of its own.
 */
export async function synthesizeTree(options: SynthTreeOptions): Promise<SynthResult[]> {
  if (options.tenants.length === 0) return [];
  const scratch = mkdtempSync(join(tmpdir(), 'fleet-synth-'));
  try {
    mkdirSync(options.outDir, { recursive: true });
    const input: WorkerInput = {
      treeDir: options.treeDir,
      stage: options.stage,
      outDir: resolve(options.outDir),
      checks: options.checks,
      validation: options.validation,
      tenants: options.tenants.map(({ name, file }) => ({ name, file: resolve(file) })),
      resultFile: join(scratch, 'result.json'),
    };
    const inputFile = join(scratch, 'input.json');
    writeFileSync(inputFile, JSON.stringify(input));
    const { code, output } = await runWorker(options.treeDir, inputFile);
    if (!existsSync(input.resultFile)) {
      throw new FleetError(
        `could not synthesise in ${options.treeDir} (worker exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`,
      );
    }
    const results = JSON.parse(readFileSync(input.resultFile, 'utf8')) as WorkerResult[];
    return results.map((result, index) => ({ ...result, file: options.tenants[index]?.file ?? '' }));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Two tenant files with one tenant id build one stack name: each deploy would overwrite the other's.
 * Both are reported as invalid.
 */
export function refuseSharedStacks(results: SynthResult[]): SynthResult[] {
  return results.map((result) => {
    if (!result.ok) return result;
    const twin = results.find(
      (other) => other !== result && other.ok && other.stackName === result.stackName,
    );
    if (!twin) return result;
    return {
      name: result.name,
      file: result.file,
      ok: false,
      invalidTenant: true,
      message: `${twin.name} builds the same stack, ${result.stackName}: two tenant files with one tenant id`,
    };
  });
}

function runWorker(cwd: string, inputFile: string): Promise<{ code: number | null; output: string }> {
  // A context or output folder meant for another app (set when run under `cdk`) must not reach this one.
  const { CDK_CONTEXT_JSON: _context, CDK_OUTDIR: _outdir, ...env } = process.env;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, WORKER, inputFile], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}
