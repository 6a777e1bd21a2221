import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { METRIC, METRICS_NAMESPACE } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { logger } from '#lib/runtime/logger.ts';
import { TEST_SLIP_KEY } from '#test/support/deps.ts';
import { createTestDb } from '#test/support/dynamo.ts';
import { invoke, makeEvent, staffBasic } from '#test/support/events.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

type Handler = Parameters<typeof invoke>[0];

let db: Db;
let written: string[] = [];
const saved = { ...process.env };
const day = addDays(todayIn('America/Toronto', Date.now()), 50);

/** The embedded-metric-format lines the functions wrote to stdout (what CloudWatch turns into metrics). */
const emfLines = () =>
  written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line));

beforeAll(async () => {
  db = await createTestDb('lambda');
  await writeTenant(
    db,
    makeTenant(makeTenantJson({ tenant: 'entry', items: [makeItem({ stock: 3 })] })),
    Date.now(),
  );
  // The environment the stack gives each function.
  Object.assign(process.env, {
    TABLE_NAME: db.tableName,
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TENANT: 'entry',
    SLIP_KEYS: TEST_SLIP_KEY.secret,
    AWS_REGION: 'local',
    PUBLIC_URL: 'https://api.example.test',
  });
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    written.push(String(chunk));
    return String(chunk).includes('"_aws"') ? true : write(chunk, ...rest);
  }) as typeof process.stdout.write);
});

afterAll(() => {
  vi.restoreAllMocks();
  process.env = saved;
});

describe('the Lambda entries (as deployed: metrics on)', () => {
  it('answer through their tracing and metrics middlewares, and flush what a request counted', async () => {
    const items = (await import('#functions/items/handler.ts')).handler as Handler;
    const session = (await import('#functions/session/handler.ts')).handler as Handler;
    const meta = (await import('#functions/meta/handler.ts')).handler as Handler;

    written = [];
    const warn = vi.spyOn(logger, 'warn');
    expect((await invoke(meta, { path: 'ping' })).status).toBe(200);
    // Nothing counted, nothing written: no empty metrics document, no warning about it.
    expect(emfLines()).toEqual([]);
    expect(warn.mock.calls.flat().join(' ')).not.toContain('No application metrics');

    const rated = await invoke(items, { path: 'item/1', query: `date=${day}&param[qty]=1` });
    const held = await invoke(session, {
      method: 'POST',
      path: 'booking/session',
      body: `slip[]=${rated.json.item.rate.slip}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(held.status).toBe(200);
    const holds = emfLines().filter((line) => METRIC.holdsMade in line);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      service: 'booking-api',
      tenant: 'entry',
      [METRIC.holdsMade]: 1,
      _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'tenant']] }] },
    });
  });

  it('the admin entry answers its group from the environment alone (no SLIP or payment keys)', async () => {
    const admin = (await import('#functions/admin/handler.ts')).handler as Handler;
    expect((await invoke(admin, { path: 'webhook' })).status).toBe(401);
    const authorization = await staffBasic(db);
    const listed = await invoke(admin, { path: 'webhook', headers: { authorization } });
    expect([listed.status, listed.json.webhooks]).toEqual([200, {}]);
    const customer = await invoke(admin, {
      path: 'customer',
      query: 'customer_email=nobody@example.com',
      headers: { authorization },
    });
    expect([customer.status, customer.json.customers]).toEqual([200, {}]);
  });

  it('the channels entry answers the API group and runs the schedule', () => {
    // A process of its own: this entry traces (the X-Ray SDK), whose async hook must not stay in the tests'.
    const feed = makeEvent({ path: 'item/1/ical', query: 'token=nobody' });
    const script = `
      const { handler } = await import('#functions/channels/handler.ts');
      const answer = await handler(${JSON.stringify(feed)}, { getRemainingTimeInMillis: () => 10000 });
      const round = await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, {});
      process.stdout.write('@@' + JSON.stringify({ status: answer.statusCode, body: answer.body, round: round ?? null }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR', POWERTOOLS_TRACE_ENABLED: 'false' },
    });
    const result = JSON.parse(out.slice(out.lastIndexOf('@@') + 2));
    // A wrong feed token is the same 404 as an unknown item; the tenant has no channels, so no round.
    expect(result.status).toBe(404);
    expect(JSON.parse(result.body).request.status).toBe('ERROR');
    expect(result.round).toBeNull();
  });

  it('the scheduled entries write nothing on an idle run: no metric, no log line (issue 34)', () => {
    // A process of its own, as above, with the logger at the level Lambda runs it (the tests silence it).
    const script = `
      const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event' };
      const context = { getRemainingTimeInMillis: () => 60000 };
      const sweeper = (await import('#functions/sweeper/handler.ts')).handler;
      const webhooks = (await import('#functions/webhooks/handler.ts')).handler;
      const channels = (await import('#functions/channels/handler.ts')).handler;
      const sweeps = [await sweeper(scheduled, context), await sweeper(scheduled, context)];
      await webhooks(scheduled, context);
      await channels(scheduled, context);
      process.stdout.write('@@' + JSON.stringify(sweeps));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
        POWERTOOLS_TRACE_ENABLED: 'false',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        WEBHOOK_SECRETS_ARN: 'arn:aws:secretsmanager:local:000000000000:secret:none',
      },
    });
    const marker = out.lastIndexOf('@@');
    const sweeps = JSON.parse(out.slice(marker + 2));
    expect(sweeps[1]).toMatchObject({ found: 0, released: 0, complete: true, lagSeconds: 0 });
    expect(out.slice(0, marker)).toBe('');
  });
});
