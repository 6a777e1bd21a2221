import type { ApiDeps } from '#lib/http/group-handler.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import type { SlipKey } from '#lib/slip/codec.ts';

/** The SLIP signing key of the tests. */
export const TEST_SLIP_KEY: SlipKey = { secret: 'test-slip-key-0123456789abcdefghijklmnop' };

/** Handler dependencies over a test table: no config cache, a fixed SLIP key, an optional fixed clock. */
export const testDeps = (db: Db, options: { clock?: () => number } = {}): ApiDeps => ({
  db,
  provider: 'test',
  configTtlMs: 0,
  slipKeys: async () => [TEST_SLIP_KEY],
  // The tests' events carry `Host: api.test`; the links are built on this configured URL, not on it.
  publicUrl: () => 'http://api.test',
  ...(options.clock ? { clock: options.clock } : {}),
});
