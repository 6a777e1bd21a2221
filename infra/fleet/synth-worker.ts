import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Runs as a child process at the root of a tree (the working tree, or a worktree of the baseline ref) and
// builds each tenant's stack with that tree's own code and tenant files, as its `cdk synth` would. It
// imports nothing but Node built-ins and the tree's modules, so it works on refs older than the fleet.

/** What the worker is asked to synthesise. */
export interface WorkerInput {
  treeDir: string;
  stage: string;
  /** Each tenant's cloud assembly goes to `<outDir>/<name>/`. */
  outDir: string;
  /** cdk-nag (the tree's `infra/checks.ts`), as `cdk synth` runs it. */
  checks: boolean;
  /** CloudFormation's own checks (CDK's built-in validation; `CDK_VALIDATION=false` still turns them off). */
  validation: boolean;
  tenants: { name: string; file: string }[];
  resultFile: string;
}

/** One tenant's outcome. */
export type WorkerResult =
  | { name: string; ok: true; stackName: string; templateFile: string }
  | { name: string; ok: false; invalidTenant: boolean; message: string };

interface CdkApp {
  synth(): { stacks: { stackName: string; templateFullPath: string }[] };
}
type AppClass = new (props: Record<string, unknown>) => CdkApp;
type BuildStack = (app: CdkApp, file: string, stage: string) => unknown;

const moduleOf = (file: string) => import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;

/** How the tree builds a tenant: its `addTenantStack`, or (refs before it existed) `TenantStack` itself. */
async function stackBuilder(treeDir: string): Promise<BuildStack> {
  const tenantApp = join(treeDir, 'infra', 'tenant-app.ts');
  if (existsSync(tenantApp)) {
    const { addTenantStack } = await moduleOf(tenantApp);
    if (typeof addTenantStack === 'function')
      return (app, file, stage) => addTenantStack(app, { file, stage });
  }
  const { TenantStack } = (await moduleOf(join(treeDir, 'infra', 'tenant-stack.ts'))) as {
    TenantStack: new (scope: CdkApp, id: string, props: Record<string, unknown>) => unknown;
  };
  const { readTenantFile } = (await moduleOf(join(treeDir, 'infra', 'local', 'settings.ts'))) as {
    readTenantFile: (file: string) => { tenant: string };
  };
  return (app, file, stage) => {
    const tenant = readTenantFile(file);
    return new TenantStack(app, `Booking-${tenant.tenant}-${stage}`, {
      tenant,
      stage,
      env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    });
  };
}

/**
 * The context `cdk synth` would give the app: the tree's cdk.json (and cdk.context.json) context, the
 * metadata the CLI turns on by default (so the templates match deployed ones), no bundling (the diff
 * looks at templates; a function's code is an asset whose key then stays the same), and the tenant.
 */
function contextFor(treeDir: string, name: string, stage: string): Record<string, unknown> {
  const read = (file: string) =>
    existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const settings = read(join(treeDir, 'cdk.json'));
  const context: Record<string, unknown> = {
    ...((settings.context as Record<string, unknown> | undefined) ?? {}),
    ...read(join(treeDir, 'cdk.context.json')),
  };
  if (settings.pathMetadata ?? true) context['aws:cdk:enable-path-metadata'] = true;
  if (settings.assetMetadata ?? true) context['aws:cdk:enable-asset-metadata'] = true;
  if (settings.versionReporting ?? true) context['aws:cdk:version-reporting'] = true;
  else context['aws:cdk:disable-version-reporting'] = true;
  return { ...context, 'aws:cdk:bundling-stacks': [], tenant: name, stage };
}

/** A failed validation's findings (cdk-nag's rules and what broke them), from the report synth wrote. */
function validationFindings(outdir: string): string | undefined {
  const file = join(outdir, 'validation-report.json');
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    pluginReports?: {
      pluginName: string;
      violations?: {
        ruleName: string;
        severity: string;
        violatingConstructs?: { constructPath: string }[];
      }[];
    }[];
  };
  const lines = (report.pluginReports ?? []).flatMap((plugin) =>
    (plugin.violations ?? []).map(
      (violation) =>
        `  ${violation.severity} ${violation.ruleName} (${plugin.pluginName}): ` +
        (violation.violatingConstructs ?? []).map((construct) => construct.constructPath).join(', '),
    ),
  );
  return [`validation failed (the whole report: ${file}):`, ...lines].join('\n');
}

/** Synthesises each tenant in an app of its own, so one broken tenant does not hide the others. */
export async function synthesizeInTree(input: WorkerInput): Promise<WorkerResult[]> {
  const cdk = await import(
    pathToFileURL(createRequire(join(input.treeDir, 'package.json')).resolve('aws-cdk-lib')).href
  );
  const App = (cdk.App ?? cdk.default.App) as AppClass;
  const build = await stackBuilder(input.treeDir);
  const addChecks = input.checks
    ? ((await moduleOf(join(input.treeDir, 'infra', 'checks.ts'))).addStackChecks as (app: CdkApp) => void)
    : undefined;
  const results: WorkerResult[] = [];
  for (const { name, file } of input.tenants) {
    const outdir = join(input.outDir, name);
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    try {
      const app = new App({
        outdir,
        context: contextFor(input.treeDir, name, input.stage),
        ...(input.validation ? {} : { builtinCloudFormationValidation: false }),
      });
      addChecks?.(app);
      build(app, file, input.stage);
      const [stack] = app.synth().stacks;
      if (!stack) throw new Error('the app made no stack');
      results.push({ name, ok: true, stackName: stack.stackName, templateFile: stack.templateFullPath });
    } catch (error) {
      const err = error as Error;
      const findings = validationFindings(outdir);
      results.push({
        name,
        ok: false,
        invalidTenant: err.name === 'TenantFileError',
        message: findings ?? err.message,
      });
    }
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const input = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as WorkerInput;
  const results = await synthesizeInTree(input);
  writeFileSync(input.resultFile, JSON.stringify(results));
}
