import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { TENANT_FILE_METADATA } from '#infra/tenant-names.ts';
import type { CloudFormationPort } from './aws.ts';
import { FleetError } from './errors.ts';
import type { CfnTemplate } from './stateful.ts';
import { readTemplate } from './synth.ts';

/** What the new templates are compared with: the deployed stacks, a git ref, or a folder of templates. */
export interface Baseline {
  /** Said in the header of every diff. */
  readonly description: string;
  /** The stack's template in the baseline; undefined when the baseline has no such stack. */
  template(stackName: string): Promise<CfnTemplate | undefined>;
  /** Why the baseline of a stack could not be had (a git ref whose tenant failed to synthesise). */
  problem(stackName: string): string | undefined;
  /** The baseline's stacks of a stage (`Booking-*-<stage>`). */
  stackNames(stage: string): Promise<string[]>;
  /** The tenant file (name) a baseline stack was built from, when it says (template metadata, git). */
  tenantFileOf(stackName: string): Promise<string | undefined>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a stack name is a tenant stack of the stage (`Booking-<tenant>-<stage>`). */
export const isStackOfStage = (stackName: string, stage: string): boolean =>
  new RegExp(`^Booking-.+-${escapeRegExp(stage)}$`).test(stackName);

/** The tenant file a template says it was built from (`infra/tenant-app.ts` writes it). */
export const tenantFileInTemplate = (template: CfnTemplate | undefined): string | undefined => {
  const value = template?.Metadata?.[TENANT_FILE_METADATA];
  return typeof value === 'string' ? value : undefined;
};

/** A baseline of stored templates, by stack name (the file name less `.template.json`). */
export function templateMapBaseline(
  description: string,
  files: ReadonlyMap<string, string>,
  problems: ReadonlyMap<string, string> = new Map(),
  tenantFiles: ReadonlyMap<string, string> = new Map(),
): Baseline {
  const cache = new Map<string, CfnTemplate>();
  const load = (stackName: string): CfnTemplate | undefined => {
    const file = files.get(stackName);
    if (!file) return undefined;
    if (!cache.has(stackName)) cache.set(stackName, readTemplate(file));
    return cache.get(stackName);
  };
  return {
    description,
    template: async (stackName) => load(stackName),
    problem: (stackName) => problems.get(stackName),
    stackNames: async (stage) =>
      [...new Set([...files.keys(), ...tenantFiles.keys()])]
        .filter((name) => isStackOfStage(name, stage))
        .sort(),
    tenantFileOf: async (stackName) => tenantFiles.get(stackName) ?? tenantFileInTemplate(load(stackName)),
  };
}

/**
 * A folder of templates (`<stack>.template.json`, as `cdk synth` and `npm run fleet -- synth` write them),
 * looked for three levels deep. Two templates of one stack name are an error: which one is meant?
 */
export function directoryBaseline(dir: string): Baseline {
  const files = new Map<string, string>();
  const walk = (folder: string, depth: number) => {
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) {
        if (depth < 3 && !entry.startsWith('asset.')) walk(path, depth + 1);
      } else if (entry.endsWith('.template.json')) {
        const stackName = entry.slice(0, -'.template.json'.length);
        const seen = files.get(stackName);
        if (seen) throw new FleetError(`${dir} holds two templates of ${stackName}: ${seen} and ${path}`);
        files.set(stackName, path);
      }
    }
  };
  walk(dir, 0);
  const where = relative(process.cwd(), dir) || dir;
  if (files.size === 0)
    throw new FleetError(`${where} holds no <stack>.template.json: no baseline to compare with`);
  // Read now, before anything is synthesised: a later read could see what this run writes.
  const baseline = templateMapBaseline(`templates in ${where}`, files);
  for (const stackName of files.keys()) void baseline.template(stackName);
  return baseline;
}

/** The deployed stacks: each stack's template as CloudFormation holds it (GetTemplate, Original). */
export function deployedBaseline(cloudFormation: CloudFormationPort, region: string): Baseline {
  const templates = new Map<string, Promise<CfnTemplate | undefined>>();
  const template = (stackName: string) => {
    if (!templates.has(stackName)) templates.set(stackName, cloudFormation.getTemplate(stackName));
    return templates.get(stackName) as Promise<CfnTemplate | undefined>;
  };
  let names: Promise<string[]> | undefined;
  return {
    description: `the deployed stacks (CloudFormation GetTemplate, region ${region})`,
    template,
    problem: () => undefined,
    stackNames: async (stage) => {
      names ??= cloudFormation.listStackNames();
      return (await names).filter((name) => isStackOfStage(name, stage));
    },
    tenantFileOf: async (stackName) => tenantFileInTemplate(await template(stackName)),
  };
}
