import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Db } from '#lib/db/client.ts';
import { writeTenant } from '#lib/db/tenant-load-repository.ts';
import { buildFloorBundle, coldEnv, probeColdStart, recordFloorScript } from '#test/bench/cold.ts';
import { coldStart } from '#test/bench/cold-cases.ts';
import { batchCalls, type TimedCall } from '#test/bench/cold-recorder.ts';
import { benchTenant } from '#test/bench/tenant.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { makeEvent } from '#test/support/events.ts';

// The cold benchmark's floor replays the calls a recording proxy saw a real bundle make and answers its
// bytes: if the recorder missed a call or the floor's bundle could not replay one, its ratio would lie.

const call = (operation: string, startedAt: number, endedAt: number): TimedCall => ({
  operation,
  input: {},
  status: 200,
  startedAt,
  endedAt,
});

describe('batchCalls', () => {
  it('puts calls made before any answer of a batch came back into that batch, the rest in turn', () => {
    const batches = batchCalls([
      call('UpdateItem', 0, 5),
      call('Query', 6, 10),
      call('GetItem', 7, 9),
      call('Query', 11, 12),
    ]);
    expect(batches.map((batch) => batch.map((one) => one.operation))).toEqual([
      ['UpdateItem'],
      ['Query', 'GetItem'],
      ['Query'],
    ]);
  });
});

describe('the cold floor of meta: company', () => {
  it('makes the calls the meta bundle made against the table and answers its bytes', async () => {
    const db: Db = await createTestDb('bench-cold');
    await writeTenant(db, benchTenant(2, coldStart()), Date.now());
    const dir = mkdtempSync(join(tmpdir(), 'bench-cold-test-'));
    const meta = await buildFloorBundle(join(dir, 'meta'), 'functions/meta/handler.ts');
    const floor = await buildFloorBundle(join(dir, 'floor'));
    const env = {
      PATH: process.env.PATH ?? '',
      ...coldEnv({ endpoint: inject('dynamoEndpoint'), tableName: db.tableName }),
    };
    const event = makeEvent({ path: 'company', sourceIp: '203.0.113.9' });
    const script = await recordFloorScript({ bundle: meta, event, env, dir });
    expect(script.batches.flat().map((one) => one.operation)).toContain('GetItem');
    const scriptFile = join(dir, 'floor.json');
    writeFileSync(scriptFile, JSON.stringify(script));
    const answer = await probeColdStart({
      bundle: floor,
      event,
      env: { ...env, COLD_FLOOR_SCRIPT: scriptFile },
      dir,
    });
    expect(answer.response).toEqual(script.response);
    expect(answer.response.statusCode).toBe(200);
  }, 60_000);
});
