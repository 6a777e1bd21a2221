import { describe, expect, inject, it } from 'vitest';
import { readTenantFile } from '#infra/local/settings.ts';
import { runReconcile } from '#lib/housekeeping/reconcile-run.ts';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { readJson } from '#test/support/events.ts';
import { setUpService } from '#test/support/local-runner.ts';

// The check, as a script would run it against `npm start` with the demo tenant. The loopback peer
// is a trusted proxy (TRUSTED_PROXIES), so X-Forwarded-For names each pretend client address.
const service = setUpService('abuse', { TRUSTED_PROXIES: '127.0.0.1' });
const KAYAK = 3; // Touring Kayak, 10 a day
const day = (offset: number) => addDays(todayIn('America/Toronto', Date.now()), 40 + offset);

const from = (address: string, extra: Record<string, string> = {}) => ({
  'x-forwarded-for': address,
  ...extra,
});

const rate = async (address: string, query: string) =>
  readJson(await fetch(`${service.base}/item/${KAYAK}?${query}`, { headers: from(address) }));

const add = (address: string, slips: string[], extra: Record<string, string> = {}) =>
  fetch(`${service.base}/booking/session`, {
    method: 'POST',
    headers: from(address, { 'content-type': 'application/x-www-form-urlencoded', ...extra }),
    body: slips.map((slip) => `slip[]=${encodeURIComponent(slip)}`).join('&'),
  });

describe('a hoarding script against npm start', () => {
  it('is refused past its share and its carts, while other clients book every day it targeted', async () => {
    const hoarder = '203.0.113.200';
    const statuses: number[] = [];
    const held: string[] = [];
    for (let offset = 0; offset < 4; offset += 1) {
      const slip = (await rate(hoarder, `date=${day(offset)}&param[qty]=6`)).item.rate.slip;
      const response = await add(hoarder, [slip]);
      statuses.push(response.status);
      const half = (await rate(hoarder, `date=${day(offset)}&param[qty]=5`)).item.rate.slip;
      const second = await add(hoarder, [half]);
      statuses.push(second.status);
      if (second.status === 200) held.push((await readJson(second)).booking.session.id);
    }
    // Six of ten is never allowed; five of ten is, in at most three carts.
    expect(statuses.filter((_, index) => index % 2 === 0)).toEqual([409, 409, 409, 409]);
    expect(held).toHaveLength(3);

    for (let offset = 0; offset < 4; offset += 1) {
      const guest = `198.18.7.${offset + 1}`;
      const free = (await rate(guest, `date=${day(offset)}`)).item.rate.available;
      expect(free).toBeGreaterThanOrEqual(5);
      // Everything the hoarder could not hold (a guest's own share caps it at five).
      const slip = (await rate(guest, `date=${day(offset)}&param[qty]=${Math.min(free, 5)}`)).item.rate.slip;
      const cart = await readJson(await add(guest, [slip]));
      const create = await fetch(`${service.base}/booking/create`, {
        method: 'POST',
        headers: from(guest, { 'content-type': 'application/x-www-form-urlencoded' }),
        body: `session_id=${cart.booking.session.id}&form[customer_name]=Guest&form[customer_email]=g${offset}@example.com`,
      });
      expect(create.status).toBe(200);
    }
  });

  it('gets 429 with Retry-After on a burst from one address while other addresses are served', async () => {
    // Limits count in fixed one-minute windows, and a burst may straddle two: it overflows both.
    const { requests_per_minute: limit } = readTenantFile('infra/tenants/demo.json').settings.limits;
    const burst = await Promise.all(
      Array.from({ length: 2 * limit + 10 }, () =>
        fetch(`${service.base}/ping`, { headers: from('203.0.113.201') }),
      ),
    );
    const limited = burst.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(10);
    expect(Number(limited[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited[0]?.headers.get('ratelimit-remaining')).toBe('0');
    expect((await fetch(`${service.base}/ping`, { headers: from('203.0.113.202') })).status).toBe(200);
  });

  it('refuses a cross-site cart change that the same client may make from its own site', async () => {
    // That a change which changes nothing extends nothing needs time to pass: it is shown on an injected
    // clock (test/integration/hoarding.test.ts, "extends a hold only by a change that changes something").
    const guest = '203.0.113.203';
    const slip = (await rate(guest, `date=${day(10)}&param[qty]=2`)).item.rate.slip;
    const made = await add(guest, [slip]);
    const cookie = (made.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const alter = (headers: Record<string, string>) =>
      fetch(`${service.base}/booking/session`, {
        method: 'POST',
        headers: from(guest, { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers }),
        body: 'alter[1]=1',
      });
    const forged = await alter({ origin: 'https://evil.example.net' });
    expect(forged.status).toBe(403);
    expect((await alter({})).status).toBe(200);
  });

  it('refuses a rotating script its re-add in a new cart with Retry-After, while another address holds', async () => {
    // Issue 27: end the cart and re-add the same SLIP at once, as a script does to skip the wait for expiry.
    const rotator = '203.0.113.204';
    const slip = (await rate(rotator, `date=${day(20)}&param[qty]=5`)).item.rate.slip;
    const first = await readJson(await add(rotator, [slip]));
    const end = await fetch(`${service.base}/booking/session/end`, {
      method: 'POST',
      headers: from(rotator, { 'content-type': 'application/x-www-form-urlencoded' }),
      body: `session_id=${first.booking.session.id}`,
    });
    expect(end.status).toBe(200);
    const again = await add(rotator, [slip]);
    expect(again.status).toBe(409);
    const refusal = (await readJson(again)).request.error;
    expect(refusal).toMatchObject({ id: 'hold_limit', data: { item_id: KAYAK, date: day(20) } });
    // The demo's default cooldown is its hold time, 15 minutes.
    expect(refusal.data.retry_after).toBeGreaterThan(14 * 60);
    expect(Number(again.headers.get('retry-after'))).toBe(refusal.data.retry_after);
    const guest = '198.18.7.20';
    const held = await add(guest, [(await rate(guest, `date=${day(20)}&param[qty]=5`)).item.rate.slip]);
    expect(held.status).toBe(200);
  });

  it('leaves no discrepancy for npm run reconcile', async () => {
    const db = createDb({ endpoint: inject('dynamoEndpoint'), tableName: service.tableName });
    const report = await runReconcile(db, { fix: false, now: Date.now() });
    expect(report.discrepancies).toEqual([]);
    expect(report.clientDiscrepancies).toEqual([]);
  });
});
