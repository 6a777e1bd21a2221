import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
