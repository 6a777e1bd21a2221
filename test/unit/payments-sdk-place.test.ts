import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYMENT_ADAPTER_FILE, shipPaymentAdapter } from '#infra/constructs/functions.ts';
import { NO_SDK_FUNCTIONS, PAYMENT_CALLERS, SDK_CODE, stripeSdkPlaces } from '#test/bench/bundles.ts';
import { buildFloorBundle } from '#test/bench/cold.ts';

// Issue 43, the SDK's place: functions are bundled as one ESM file, so the adapter's dynamic import would
// inline the Stripe SDK into every bundle that reaches it. It is external to all of them, built into the
// adapter's file beside the three that call the provider; the items, session and meta bundles neither carry
// nor import it.

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

  it('has the adapter beside it as one file with the SDK inside, which needs nothing else at its first call', () => {
    const out = mkdtempSync(join(tmpdir(), 'adapter-ship-'));
    for (const command of shipPaymentAdapter(resolve('.'), out)) execSync(command);
    const adapter = readFileSync(join(out, PAYMENT_ADAPTER_FILE), 'utf8');
    expect(adapter.includes(SDK_CODE)).toBe(true);
    expect(IMPORTS_SDK.test(adapter)).toBe(false);
    expect(readdirSync(out)).toEqual([PAYMENT_ADAPTER_FILE]);
    // A webhook never signed, and a read of a checkout from a server that answers as Stripe does: the adapter's
    // file alone, no node_modules beside it, refuses the one in the port's words and reads the other.
    const answered = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createServer } from 'node:http';
         const server = createServer((request, response) => {
           response.setHeader('content-type', 'application/json');
           response.end(JSON.stringify({ id: new URL(request.url, 'http://x').pathname.split('/').pop(), object: 'checkout.session',
             status: 'open', payment_status: 'unpaid', amount_total: 9000, currency: 'usd', metadata: {},
             url: 'http://127.0.0.1/pay', expires_at: 1900000000, payment_intent: null }));
         }).listen(0, '127.0.0.1');
         await new Promise((done) => server.once('listening', done));
         const { stripeProvider } = await import('./${PAYMENT_ADAPTER_FILE}');
         const provider = stripeProvider({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x',
           apiBase: 'http://127.0.0.1:' + server.address().port });
         await provider.readEvent('{}', 't=1,v1=00', 1).catch((error) => console.log(error.code));
         const view = await provider.readCheckout('cs_test_1'); console.log(view.checkoutId + ' ' + view.amount);
         server.close();`,
      ],
      { cwd: out, encoding: 'utf8' },
    );
    expect(answered.trim().split('\n')).toEqual(['invalid_signature', 'cs_test_1 9000']);
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
        for (const command of shipPaymentAdapter(resolve('.'), dir)) execSync(command);
      return { function: name, file: join(dir, 'index.mjs'), environment: {} };
    });
    expect(stripeSdkPlaces(functions)).toEqual([]);
    for (const command of shipPaymentAdapter(resolve('.'), join(out, 'Items'))) execSync(command);
    writeFileSync(join(out, 'Meta', 'index.mjs'), `const host = '${SDK_CODE}';\n`);
    expect(stripeSdkPlaces(functions)).toEqual([
      'Items: the Stripe adapter ships beside its bundle',
      'Meta: the Stripe SDK is written into its bundle',
    ]);
    expect(stripeSdkPlaces(functions.filter((fn) => fn.function !== 'Sweeper'))).toContain(
      'Sweeper: no such function synthesised',
    );
  }, 60_000);
});
