import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { buildFloorBundle, coldEnv, probeColdStart, recordFloorScript } from '#test/bench/cold.ts';
import { type ColdResponse, coldCases, coldStart, type RunOnce } from '#test/bench/cold-cases.ts';
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

describe('the cold create case', () => {
  it("gives a floor run the run's session, a fresh idempotency record, booking number and code", async () => {
    let sessions = 0;
    const runOnce: RunOnce = async (_fn, event): Promise<ColdResponse> => {
      if (!event.rawPath.endsWith('/session')) return { statusCode: 200, body: '{}' };
      sessions += 1;
      return {
        statusCode: 200,
        body: JSON.stringify({ booking: { session: { id: `session-${sessions}` } } }),
      };
    };
    const functions = ['Session', 'Bookings'].map((name) => ({ function: name, file: '', environment: {} }));
    const cases = await coldCases({ start: coldStart(), slip: 'slip', functions, runOnce });
    const create = cases.find((one) => one.request.startsWith('create'));
    const recorded = await create?.event(0);
    const run = await create?.event(1);
    if (!create?.substitutions || !recorded || !run) throw new Error('no create case');
    const script = {
      batches: [
        [
          { operation: 'GetItem', input: { pk: 'SESSION#session-2' } },
          {
            operation: 'PutItem',
            input: { sk: 'booking-create#abc==', gsi1pk: 'CUSTOMER_BOOKINGS#0000000001' },
          },
          { operation: 'PutItem', input: { pk: 'BOOKING#0000000002', code: 'BOOKING_CODE#BENCH-ABCDEF' } },
        ],
      ],
      response: {
        statusCode: 200,
        body: JSON.stringify({ booking: { booking_id: 2, code: 'BENCH-ABCDEF' } }),
      },
    };
    const text = create
      .substitutions({ event: recorded, script }, { event: run, index: 1 })
      .reduce((all, [from, to]) => all.split(from).join(to), JSON.stringify(script));
    expect(text).toContain('SESSION#session-3');
    expect(text).toContain('BOOKING#9000000001');
    expect(text).toContain('CUSTOMER_BOOKINGS#0000000001');
    for (const recordedId of ['session-2', 'booking-create#abc==', '0000000002', 'BENCH-ABCDEF'])
      expect(text).not.toContain(recordedId);
  });
});
