import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_BUDGETS } from '#test/bench/bundle-budgets.ts';
import { buildFloorBundle } from '#test/bench/cold.ts';

// Each function bundled as the stack bundles it (FUNCTION_BUNDLING, through the cold benchmark's build),
// against the floor bundled the same way: a heavy import is caught here, before a deploy or a benchmark.
describe('the bundles', () => {
  it('each weigh no more than its budget times the floor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-budget-'));
    const sizeOf = async (name: string, entry?: string) =>
      statSync(await buildFloorBundle(join(dir, name), entry)).size;
    const floor = await sizeOf('floor');
    const over: string[] = [];
    for (const [name, { entry, ratio }] of Object.entries(BUNDLE_BUDGETS)) {
      const bytes = await sizeOf(name, entry);
      if (bytes > floor * ratio) {
        over.push(
          `${name}: ${Math.round(bytes / 1024)} KB, ${(bytes / floor).toFixed(2)} × the floor, budget ${ratio}`,
        );
      }
    }
    expect(over).toEqual([]);
  }, 120_000);
});
