import { beforeAll, expect, vi } from 'vitest';
import { createAllHandlers } from '#functions/index.ts';
import { rateItem } from '#lib/catalog/rate-item.ts';
import { writeTenant } from '#lib/housekeeping/tenant-load.ts';
import { addDays, todayIn, toIsoDate } from '#lib/kernel/dates.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { configKey } from '#lib/kernel/storage/keys.ts';
import { type SlipPayload, verifySlip } from '#lib/slip/codec.ts';
import { TEST_SLIP_KEY, testDeps } from './deps.ts';
import { createTestDb } from './dynamo.ts';
import { formBody, invoke, staffBasic, type TestRequest, type TestResponse } from './events.ts';
import { sessionClient } from './session.ts';
import { demoTenantJson, makeTenant } from './tenant.ts';

// The world of the rated wire attacks (test/integration/rated-wire-{counters,clock,callers}.test.ts). Each
// of those files wraps `rateItem` with vi.mock itself: a mock set up here would come after the handlers
// had imported the real one.
//
// Attacks on the rated wire JSON the items function keeps between requests (functions/items/rated-cache.ts) and
// on the splicing of kept JSON into answers (lib/http/raw-json.ts). Every answer of the attacked handler
// set is held, byte for byte but `request.time`, to what a fresh handler set answers for the same request
// at the same clock: `createAllHandlers(testDeps(db, { clock }))`.
//
// Why the attacked set is not `testDeps` as it is: testDeps sets `configTtlMs: 0`, so every request reads
// the configuration again (a new object, and the kept JSON is per configuration object) and the catalogue
// is not reused (new item objects, and the kept JSON is per item object): nothing kept would ever be
// served, and the attacks would test nothing. So the attacked set takes testDeps with a positive TTL:
// - for counters, clocks, callers, rules, SLIPs and injection, a TTL of a year: one configuration object
//   (and so one set of kept JSON) lives through every clock jump of those tests, the harshest case;
// - for tenant loads, the production TTL of 15 s: a tenant load may show up to 15 s late (settings and
//   catalogue, by design, docs/decisions.md); counters never may, and after 15 s nothing may be stale.
// The fresh set keeps nothing: its TTL of 0 gives each request a new configuration and new item objects.
// `rateItem` is wrapped (not changed) so a test can tell a kept answer from one rated again.

type Handlers = ReturnType<typeof createAllHandlers>;

export const TZ = 'America/Toronto';
export const YEAR_MS = 366 * 86_400_000;

let now = Date.now();
let clock = () => now;
const rateCalls = () => vi.mocked(rateItem).mock.calls.length;

const today = todayIn(TZ, Date.now());
// A Tuesday about two months ahead, clear of lead times, closed days and the demo's seasons.
export const day = (() => {
  let candidate = addDays(today, 60);
  while (new Date(`${toIsoDate(candidate)}T12:00:00Z`).getUTCDay() !== 2) candidate = addDays(candidate, 1);
  return candidate;
})();

/** The demo tenant, with limits that leave the attacks alone (hoarding and rate limits have their own tests). */
export const demoJson = (change: (json: any) => void = () => {}) => {
  const json = demoTenantJson() as any;
  json.settings.limits = {
    requests_per_minute: 100_000,
    writes_per_minute: 100_000,
    staff_requests_per_minute: 100_000,
    client_hold_share: 1,
    open_sessions_per_client: 100,
  };
  change(json);
  return json;
};

export const itemOf = (json: any, id: number) => json.items.find((item: any) => item.item_id === id);

/** A response's text with its processing time (the first `"time":`, the envelope's request.time) zeroed. */
export const untimed = (text: string): string => text.replace(/"time":[-+0-9.eE]+/, '"time":0');

/** The leaf paths where two JSON values differ, to name what a kept answer got wrong. */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (Object.is(a, b)) return [];
  const plain = (value: unknown) => typeof value === 'object' && value !== null;
  if (!plain(a) || !plain(b) || Array.isArray(a) !== Array.isArray(b)) {
    return [
      `${path || '<root>'}: ${JSON.stringify(a)?.slice(0, 160)} != ${JSON.stringify(b)?.slice(0, 160)}`,
    ];
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  return keys.flatMap((key) => differences(left[key], right[key], `${path}.${key}`));
}

const withoutTime = (json: any) =>
  json?.request ? { ...json, request: { ...json.request, time: 0 } } : json;

/** Every SLIP in an answer. */
export const slipsOf = (json: any): string[] => {
  const items = json?.items ? Object.values(json.items) : json?.item ? [json.item] : [];
  return items.flatMap((item: any) => (item?.rate?.slip ? [item.rate.slip as string] : []));
};

export const verify = (slip: string, tenant = 'demo'): SlipPayload =>
  verifySlip(slip, { keys: [TEST_SLIP_KEY], tenant, now: clock() });

/** Why a SLIP is refused now, or undefined when it is valid. */
export const failureOf = (slip: string, tenant = 'demo'): string | undefined => {
  try {
    verify(slip, tenant);
    return undefined;
  } catch (error) {
    return (error as { reason?: string }).reason ?? String(error);
  }
};

export interface Rated extends TestResponse {
  /** How many items the attacked set rated for this answer (0: all of it was kept JSON). */
  rerated: number;
  fresh: TestResponse;
}

/** A table with a tenant, the attacked handler set over it and the means to check each of its answers. */
export function bench(options: { db: () => Db; configTtlMs: number }) {
  let attacked: Handlers | undefined;
  const handlers = (): Handlers => {
    attacked ??= createAllHandlers({
      ...testDeps(options.db(), { clock }),
      configTtlMs: options.configTtlMs,
    });
    return attacked;
  };
  const fresh = (): Handlers => createAllHandlers(testDeps(options.db(), { clock }));

  /** The attacked answer, checked against a fresh handler set's at the same clock. */
  const rate = async (step: string, request: TestRequest): Promise<Rated> => {
    const before = rateCalls();
    const answer = await invoke(handlers().items, request);
    const rerated = rateCalls() - before;
    const expected = await invoke(fresh().items, request);
    expect(answer.status, `${step}: status`).toBe(expected.status);
    expect(differences(withoutTime(answer.json), withoutTime(expected.json)), step).toEqual([]);
    expect(untimed(answer.text), `${step}: bytes`).toBe(untimed(expected.text));
    return { ...answer, rerated, fresh: expected };
  };

  return {
    handlers,
    fresh,
    rate,
    client: () => sessionClient(handlers()),
  };
}

export let db: Db;
let staff: string;
export const main = bench({ db: () => db, configTtlMs: YEAR_MS });
export const client = () => main.client();
export const asStaff = () => ({ authorization: staff });

export const bookSession = (handlers: Handlers, sessionId: string) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: 'booking/create',
    body: formBody({
      session_id: sessionId,
      'form[customer_name]': 'Ada Lovelace',
      'form[customer_email]': 'ada@example.com',
    }),
    contentType: 'application/x-www-form-urlencoded',
  });

export const setStatus = (handlers: Handlers, code: string, status: string) =>
  invoke(handlers.bookings, {
    method: 'POST',
    path: `booking/${code}/update`,
    query: `status_id=${status}&notify=0`,
    headers: asStaff(),
  });

/** Moves the world's own clock forward to `at`, never back (holds and sessions expire by it). */
export const advanceTo = (at: number) => {
  now = Math.max(now, at);
};

/** A view of a table that runs `between` right after the tenant load writes the configuration. */
export const pausedAfterConfig = (target: Db, between: () => Promise<void>): Db => {
  let paused = false;
  const client = new Proxy(target.documents, {
    get(object, property, receiver) {
      if (property !== 'send') return Reflect.get(object, property, receiver);
      return async (command: { input: any }, ...rest: unknown[]) => {
        const result = await (object.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
        const key = command.input?.Key;
        const config = configKey();
        if (!paused && key?.pk === config.pk && key?.sk === config.sk && command.input.UpdateExpression) {
          paused = true;
          await between();
        }
        return result;
      };
    },
  });
  return { ...target, documents: client };
};

/**
 * Sets the world up before the file's tests: the demo tenant on a table of its own and a staff credential.
 * A file that moves time by hand passes its own clock, and the world's answers and SLIP checks follow it.
 */
export function setUpRatedWireWorld(options: { clock?: () => number } = {}): void {
  if (options.clock) clock = options.clock;
  beforeAll(async () => {
    db = await createTestDb('ratedattack');
    await writeTenant(db, makeTenant(demoJson()), Date.now());
    staff = await staffBasic(db, { label: 'x' });
    now = Date.now();
  });
}
