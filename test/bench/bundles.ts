import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PAYMENT_ADAPTER_FILE } from '#infra/constructs/functions.ts';

/** One function bundle: its minified size and the median time of five imports in a fresh Node process. */
export interface BundleResult {
  function: string;
  bytes: number;
  importMs: number;
}

/** One function as `cdk synth` bundles it: its construct name, its bundle and its environment. */
export interface SynthedFunction {
  function: string;
  file: string;
  /** The function's environment in the template (string values only; tokens are left out). */
  environment: Record<string, string>;
}

/** Synthesises the demo stack and lists each function's bundle (`index.mjs` of its asset), as deployed. */
export function synthFunctions(): SynthedFunction[] {
  const out = mkdtempSync(join(tmpdir(), 'bench-cdk-'));
  execFileSync('npx', ['cdk', 'synth', '-c', 'tenant=demo', '--no-notices', '-q', '-o', out], {
    stdio: 'ignore',
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
  });
  const templateFile = readdirSync(out).find((name) => name.endsWith('.template.json')) ?? '';
  const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as {
    Resources: Record<
      string,
      {
        Type: string;
        Metadata?: Record<string, string>;
        Properties?: { Environment?: { Variables?: Record<string, unknown> } };
      }
    >;
  };
  return Object.entries(template.Resources)
    .filter(
      ([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.['aws:asset:path'],
    )
    .map(([id, resource]) => ({
      function: id.replace(/^Functions/, '').replace(/[A-F0-9]{8}$/, ''),
      file: join(out, resource.Metadata?.['aws:asset:path'] ?? '', 'index.mjs'),
      environment: Object.fromEntries(
        Object.entries(resource.Properties?.Environment?.Variables ?? {}).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      ),
    }));
}

/** Size and import time of each function bundle as the CDK build produces it. */
export function measureBundles(functions: SynthedFunction[] = synthFunctions()): BundleResult[] {
  const env = {
    ...process.env,
    // What the functions read at cold start (lib/runtime/env.ts, functions/webhooks/handler.ts).
    TABLE_NAME: 'bench',
    TENANT: 'bench',
    AWS_REGION: 'us-east-1',
    SLIP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
    WEBHOOK_SECRETS_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-webhooks',
    // The API groups check it at cold start (lib/runtime/env.ts); the stack gives each its endpoint.
    PUBLIC_URL: 'https://bench.example.com',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  return functions.map(({ function: name, file }) => {
    const times = Array.from({ length: 5 }, () =>
      Number(
        execFileSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`,
          ],
          { env, encoding: 'utf8' },
        ).trim(),
      ),
    ).sort((a, b) => a - b);
    return {
      function: name,
      bytes: statSync(file).size,
      importMs: Math.round(times[2] ?? 0),
    };
  });
}

/** The functions that call the payment provider (issue 43): the adapter, the SDK inside it, ships beside them only. */
export const PAYMENT_CALLERS = ['Bookings', 'Payments', 'Sweeper'];
/** The guests' first functions, which must never carry or load the Stripe SDK (issue 43, "Measured"). */
export const NO_SDK_FUNCTIONS = ['Items', 'Session', 'Meta'];
/** A line of the SDK's own code (its default API host): in a bundle, the SDK was written into it. */
export const SDK_CODE = 'api.stripe.com';

/**
 * Where the Stripe SDK is in the synthesised functions, as deployed: what is wrong with it, nothing when all is
 * well. Items, session and meta carry it in no form (written into the bundle, or beside it in the adapter's
 * file); bookings, payments and the sweeper have the adapter's file, the SDK inside it, beside their bundle.
 */
export function stripeSdkPlaces(functions: SynthedFunction[]): string[] {
  const wrong: string[] = [];
  for (const fn of functions) {
    const adapter = join(dirname(fn.file), PAYMENT_ADAPTER_FILE);
    const beside = existsSync(adapter);
    if (readFileSync(fn.file, 'utf8').includes(SDK_CODE))
      wrong.push(`${fn.function}: the Stripe SDK is written into its bundle`);
    if (NO_SDK_FUNCTIONS.includes(fn.function) && beside)
      wrong.push(`${fn.function}: the Stripe adapter ships beside its bundle`);
    if (
      PAYMENT_CALLERS.includes(fn.function) &&
      !(beside && readFileSync(adapter, 'utf8').includes(SDK_CODE))
    )
      wrong.push(`${fn.function}: calls the provider, but the adapter with the SDK is not beside its bundle`);
  }
  for (const name of [...NO_SDK_FUNCTIONS, ...PAYMENT_CALLERS])
    if (!functions.some((fn) => fn.function === name)) wrong.push(`${name}: no such function synthesised`);
  return wrong;
}
