import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYMENT_ADAPTER_FILE, shipPaymentAdapter, shipStripeSdk } from '#infra/constructs/functions.ts';
import { NO_SDK_FUNCTIONS, PAYMENT_CALLERS, SDK_CODE, stripeSdkPlaces } from '#test/bench/bundles.ts';
import { buildFloorBundle } from '#test/bench/cold.ts';

// Issue 43, the SDK's place: functions are bundled as one ESM file, so the adapter's dynamic import would
// inline the Stripe SDK into every bundle that reaches it. It is external to all of them and shipped beside
// the three that call the provider; the items, session and meta bundles neither carry nor import it.

/** A line of the adapter's own code: the Idempotency-Key it derives for a checkout. */
const ADAPTER_CODE = ':checkout`';
const IMPORTS_SDK = /import\(\s*["']stripe["']\s*\)|from\s*["']stripe["']/;
/** What loads the adapter at the first payment (lib/payments/provider-from-env.ts): its file's name. */
const LOADS_ADAPTER = /stripe-adapter|payments-provider/;

const bundle = async (dir: string, group: string) =>
  readFileSync(await buildFloorBundle(join(dir, group), resolve(`functions/${group}/handler.ts`)), 'utf8');

describe('the Stripe SDK in the bundles', () => {
  it('is in no bundle, nor is its adapter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-place-'));
    // Nor can the guests' first functions load it: they have nothing that imports the adapter (issue 43,
    // "Measured": the SDK never in the items, session or meta bundles).
    for (const group of ['items', 'session', 'meta']) {
      const code = await bundle(dir, group);
      expect(code.includes(SDK_CODE), group).toBe(false);
      expect(IMPORTS_SDK.test(code), group).toBe(false);
      expect(code.includes(ADAPTER_CODE), group).toBe(false);
      expect(LOADS_ADAPTER.test(code), group).toBe(false);
    }
    // Nor the adapter: it is a file of its own beside them, imported at the first payment.
    for (const group of ['bookings', 'payments', 'sweeper']) {
      const code = await bundle(dir, group);
      expect(code.includes(SDK_CODE), group).toBe(false);
      expect(code.includes(ADAPTER_CODE), group).toBe(false);
      expect(LOADS_ADAPTER.test(code), group).toBe(true);
    }
  }, 120_000);

  it('ships beside a function as node_modules/stripe, importable from the bundle, without types or maps', () => {
    const out = mkdtempSync(join(tmpdir(), 'sdk-ship-'));
    for (const command of shipStripeSdk(resolve('.'), out)) execSync(command);
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { default: S } = await import('stripe'); console.log(typeof S.errors.StripeError);",
      ],
      { cwd: out, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('function');
    const left = execSync(`find "${join(out, 'node_modules', 'stripe')}" -name '*.d.ts' -o -name '*.map'`, {
      encoding: 'utf8',
    });
    expect(left.trim()).toBe('');
  });

  it('has the adapter beside it as a file of its own, which loads the shipped SDK at its first call', () => {
    const out = mkdtempSync(join(tmpdir(), 'adapter-ship-'));
    for (const command of [...shipStripeSdk(resolve('.'), out), ...shipPaymentAdapter(resolve('.'), out)])
      execSync(command);
    const adapter = readFileSync(join(out, PAYMENT_ADAPTER_FILE), 'utf8');
    expect(adapter.includes(SDK_CODE)).toBe(false);
    expect(IMPORTS_SDK.test(adapter)).toBe(true);
    // A webhook never signed: the adapter, then the SDK, loaded from beside it, refuse it in the port's words.
    const refused = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { stripeProvider } = await import('./${PAYMENT_ADAPTER_FILE}');
         const provider = stripeProvider({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x' });
         await provider.readEvent('{}', 't=1,v1=00', 1).catch((error) => console.log(error.code));`,
      ],
      { cwd: out, encoding: 'utf8' },
    );
    expect(refused.trim()).toBe('invalid_signature');
  });

  it("is where the benchmark's check of the deployed functions wants it: beside the callers, nowhere else", () => {
    // The functions as `cdk synth` lays them out (one directory each, its bundle index.mjs), checked by npm
    // run bench: the SDK shipped beside a guest's first function, or written into any bundle, is refused.
    const out = mkdtempSync(join(tmpdir(), 'sdk-assets-'));
    const functions = [...NO_SDK_FUNCTIONS, ...PAYMENT_CALLERS].map((name) => {
      const dir = join(out, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => ({ statusCode: 200 });\n');
      if (PAYMENT_CALLERS.includes(name))
        for (const command of [...shipStripeSdk(resolve('.'), dir), ...shipPaymentAdapter(resolve('.'), dir)])
          execSync(command);
      return { function: name, file: join(dir, 'index.mjs'), environment: {} };
    });
    expect(stripeSdkPlaces(functions)).toEqual([]);
    for (const command of shipStripeSdk(resolve('.'), join(out, 'Items'))) execSync(command);
    writeFileSync(join(out, 'Meta', 'index.mjs'), `const host = '${SDK_CODE}';\n`);
    expect(stripeSdkPlaces(functions)).toEqual([
      'Items: the Stripe SDK ships beside its bundle',
      'Meta: the Stripe SDK is written into its bundle',
    ]);
    expect(stripeSdkPlaces(functions.filter((fn) => fn.function !== 'Sweeper'))).toContain(
      'Sweeper: no such function synthesised',
    );
  }, 60_000);
});
