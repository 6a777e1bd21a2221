import { relative, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { FUNCTION_BUNDLING } from '#infra/constructs/functions.ts';

// Issue 43: the Stripe SDK is loaded only where a payment call is made. Importing the payments context and
// configuring a provider loads nothing; the first call does. Checked twice: in the running module graph,
// and in a bundle built with the functions' own esbuild options, where the SDK may only be reached through
// a dynamic import.

const ENTRY = resolve('lib/payments/index.ts');

describe('the payments context and the Stripe SDK', () => {
  it('does not import the SDK on import or configuration, only at the first call', async () => {
    let loads = 0;
    vi.resetModules();
    vi.doMock('stripe', async (importOriginal) => {
      loads += 1;
      return importOriginal();
    });
    const payments = await import('#lib/payments/index.ts');
    const provider = payments.stripeProvider({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x' });
    expect(loads).toBe(0);
    // A call that needs no network: a body that was never signed.
    await expect(provider.readEvent('{}', 't=1,v1=00', 1)).rejects.toMatchObject({
      code: 'invalid_signature',
    });
    expect(loads).toBe(1);
    await expect(provider.readEvent('{}', 't=1,v1=00', 1)).rejects.toMatchObject({
      code: 'invalid_signature',
    });
    expect(loads).toBe(1);
    vi.doUnmock('stripe');
  });

  it('reaches the SDK in a bundle only through a dynamic import', async () => {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      splitting: true,
      write: false,
      outdir: resolve('.data/payments-bundle-check'),
      metafile: true,
      platform: 'node',
      format: 'esm',
      target: FUNCTION_BUNDLING.target,
      mainFields: FUNCTION_BUNDLING.mainFields,
      logLevel: 'silent',
    });
    const outputs: Metafile['outputs'] = result.metafile.outputs;
    const entry = Object.keys(outputs).find((name) => outputs[name]?.entryPoint === relative('.', ENTRY));
    expect(entry).toBeDefined();
    const fromSdk = (name: string) =>
      Object.keys(outputs[name]?.inputs ?? {}).some((input) => input.includes('node_modules/stripe/'));
    // Every chunk the entry loads at import time, following static imports only.
    const loadedAtImport = new Set<string>();
    const pending = [entry as string];
    while (pending.length) {
      const name = pending.pop() as string;
      if (loadedAtImport.has(name)) continue;
      loadedAtImport.add(name);
      for (const next of outputs[name]?.imports ?? [])
        if (next.kind === 'import-statement' && !next.external) pending.push(next.path);
    }
    expect([...loadedAtImport].filter(fromSdk)).toEqual([]);
    // The SDK is in the bundle, behind the adapter's dynamic import.
    const dynamic = (outputs[entry as string]?.imports ?? []).filter(
      (next) => next.kind === 'dynamic-import',
    );
    expect(dynamic.some((next) => fromSdk(next.path))).toBe(true);
  });
});
