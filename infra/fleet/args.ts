import { parseArgs } from 'node:util';
import { TENANTS_DIR } from '#infra/tenant-names.ts';
import { FleetUsageError } from './errors.ts';

export const USAGE = `usage: npm run fleet -- <synth|diff|deploy> [options]
  synth    synthesise each tenant's stack (cdk-nag on) into --out/<stage>/<tenant>/
  diff     compare each tenant's new template with a baseline; exit 1 when stateful data is at risk
  deploy   diff, then cdk deploy each tenant in waves, a stack policy after each, alarms read after each wave

  --tenants a,b            tenant files by name (<tenants-dir>/<name>.json), in this order; default every one
  --stage <stage>          default prod (dev stacks destroy their data with the stack)
  --tenants-dir <dir>      default ${TENANTS_DIR}
  --out <dir>              default cdk.out/fleet
synth:
  --no-checks              leave cdk-nag out
diff, deploy:
  --base <ref|dir|aws>     the baseline: a git ref, a folder of templates, or aws (the deployed stacks);
                           default aws when AWS credentials and a region are configured, else git HEAD
deploy:
  --wave <n>               stacks per wave after the first (a one-stack canary); default 5
  --concurrency <m>        deploys at once within a wave; default 2
  --bake <seconds>         wait after a wave before reading its alarms; default 300
  --allow-stateful-changes deploy even when a stateful resource would be replaced, destroyed or orphaned
See docs/fleet.md.`;

export const COMMANDS = ['synth', 'diff', 'deploy'] as const;

/** A fleet command line, checked. */
export interface FleetArgs {
  command: (typeof COMMANDS)[number];
  names?: string[];
  stage: string;
  tenantsDir: string;
  outDir: string;
  checks: boolean;
  base?: string;
  waveSize: number;
  concurrency: number;
  bakeSeconds: number;
  allowStateful: boolean;
}

const ONLY_FOR: Record<string, readonly string[]> = {
  'no-checks': ['synth'],
  base: ['diff', 'deploy'],
  wave: ['deploy'],
  concurrency: ['deploy'],
  bake: ['deploy'],
  'allow-stateful-changes': ['deploy'],
};

const integer = (
  flag: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new FleetUsageError(`--${flag} takes a whole number from ${min} to ${max}, not "${text}"`);
  }
  return value;
};

/** Reads the command line (after `npm run fleet --`); `help` when asked for the usage. */
export function parseFleetArgs(argv: string[]): FleetArgs | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new FleetUsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (values.help) return 'help';
  const [command, ...extra] = positionals;
  if (!command) throw new FleetUsageError('which command: synth, diff or deploy?');
  if (!COMMANDS.includes(command as FleetArgs['command'])) {
    throw new FleetUsageError(`unknown command "${command}": synth, diff or deploy`);
  }
  if (extra.length > 0)
    throw new FleetUsageError(`unexpected argument "${extra[0]}" (tenants go in --tenants a,b)`);
  for (const [flag, commands] of Object.entries(ONLY_FOR)) {
    if (values[flag as keyof typeof values] !== undefined && !commands.includes(command)) {
      throw new FleetUsageError(`--${flag} is for ${commands.join(' and ')}, not ${command}`);
    }
  }
  let names: string[] | undefined;
  if (values.tenants !== undefined) {
    names = values.tenants.split(',').map((name) => name.trim());
    if (names.some((name) => name === '')) {
      throw new FleetUsageError(
        `--tenants takes tenant file names separated by commas, not "${values.tenants}"`,
      );
    }
  }
  const stage = values.stage ?? 'prod';
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(stage)) {
    throw new FleetUsageError(`--stage "${stage}" cannot be part of a stack name (letters, digits, dashes)`);
  }
  return {
    command: command as FleetArgs['command'],
    ...(names ? { names } : {}),
    stage,
    tenantsDir: values['tenants-dir'] ?? TENANTS_DIR,
    outDir: values.out ?? 'cdk.out/fleet',
    checks: !values['no-checks'],
    ...(values.base !== undefined ? { base: values.base } : {}),
    waveSize: integer('wave', values.wave, 5, 1, 1000),
    concurrency: integer('concurrency', values.concurrency, 2, 1, 50),
    bakeSeconds: integer('bake', values.bake, 300, 0, 86_400),
    allowStateful: values['allow-stateful-changes'] ?? false,
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      tenants: { type: 'string' },
      stage: { type: 'string' },
      'tenants-dir': { type: 'string' },
      out: { type: 'string' },
      'no-checks': { type: 'boolean' },
      base: { type: 'string' },
      wave: { type: 'string' },
      concurrency: { type: 'string' },
      bake: { type: 'string' },
      'allow-stateful-changes': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
