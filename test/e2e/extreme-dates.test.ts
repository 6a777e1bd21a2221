import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setUpService } from '#test/support/local-runner.ts';

// Every route that reads a date, driven over HTTP with dates at and past the ends of the calendar. A
// request that loops in the runner freezes it for every later request too, so each one gets a time
// limit: a hang fails the test instead of stalling the run.
const KEY = 'extreme-dates-admin';
const SECRET = 'extreme-dates-secret-0123456789';
const service = setUpService('extreme-dates', {
  ADMIN_API_KEY: KEY,
  ADMIN_API_SECRET: SECRET,
  TRUSTED_PROXIES: '127.0.0.1',
});
const staff = { authorization: `Basic ${Buffer.from(`${KEY}:${SECRET}`).toString('base64')}` };
const LIMIT_MS = 10_000;

let client = 0;
// A client address of its own per request, so the per-client limits never answer for the dates.
const nextClient = () => {
  client += 1;
  return { 'x-forwarded-for': `198.18.${Math.floor(client / 250) % 250}.${(client % 250) + 1}` };
};

const call = async (path: string, init: RequestInit & { asStaff?: boolean } = {}) => {
  const response = await fetch(`${service.base}/${path}`, {
    ...init,
    headers: { ...nextClient(), ...(init.asStaff ? staff : {}), ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(LIMIT_MS),
  });
  const text = await response.text();
  return { status: response.status, json: text.startsWith('{') ? JSON.parse(text) : undefined };
};

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Dates at the edges: the last days of year 9999 and of the supported range, the first years, leap days. */
const edgeDates = fc.constantFrom(
  '99991231',
  '9999-12-31',
  '99991230',
  '99990101',
  '99981231',
  '99981230',
  '99980101',
  '99961231',
  '10000101',
  '19000101',
  '18991231',
  '01000101',
  '00010101',
  '99991232',
  '20270229',
  '20280229',
  'today',
  'tomorrow',
);
/** Any real date of years 1000 to 9999, in either form. */
const anyDate = fc
  .record({
    year: fc.integer({ min: 1000, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
  })
  .chain(({ year, month, day }) =>
    fc.constantFrom(`${year}${pad(month, 2)}${pad(day, 2)}`, `${year}-${pad(month, 2)}-${pad(day, 2)}`),
  );
const date = fc.oneof(edgeDates, anyDate);
const unixOrDate = fc.oneof(date, fc.constantFrom('99999999999', '253402300799', '999999999', '-1'));
const prefix = fc.constantFrom('', '<', '>');

describe('dates at the ends of the calendar', () => {
  it('get an answer from every date-reading route, never a hang or a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        date,
        date,
        unixOrDate,
        prefix,
        fc.constantFrom(1, 2, 3, 5, 6, 7, 8, 9),
        async (first, second, filter, sign, itemId) => {
          const hourly = itemId === 5 ? '&start_time=2200&end_time=2300' : '';
          // Sent together: a request that loops in the runner still holds every other one past its limit.
          const answers = await Promise.all([
            call(`item?date=${first}`),
            call(`item?start_date=${first}&end_date=${second}`),
            call(`item?start_date=${first}&end_date=${second}`, { asStaff: true }),
            call(`item/${itemId}?date=${first}${hourly}`),
            call(`item/${itemId}?start_date=${first}&end_date=${second}${hourly}`, { asStaff: true }),
            call(`item/${itemId}/cal?start_date=${first}`),
            call(`item/${itemId}/cal?start_date=${first}&end_date=${second}`, { asStaff: true }),
            call(`item/cal?item_id=1,3,5,7,8&start_date=${first}&end_date=${second}`),
            call(`item/cal?start_date=${second}`, { asStaff: true }),
            call(`booking?start_date=${first}&end_date=${second}`, { asStaff: true }),
            call(`booking/index?created_date=${encodeURIComponent(sign + filter)}`, { asStaff: true }),
            call(`booking/index?last_modified=${encodeURIComponent(sign + filter)}`, { asStaff: true }),
            call(`booking/index?start_date=${encodeURIComponent(sign + filter)}`, { asStaff: true }),
            call(`booking/notes?date=${encodeURIComponent(sign + filter)}`, { asStaff: true }),
          ]);
          // A date that rates AVAILABLE goes on through the cart and into a booking.
          const rated = await call(`item/${itemId}?date=${first}${hourly}`, { asStaff: true });
          const slip = rated.json?.item?.rate?.slip;
          if (slip) {
            const form = `slip[]=${encodeURIComponent(slip)}&form[customer_name]=Edge&form[customer_email]=edge@example.com`;
            answers.push(
              await call('booking/create', {
                method: 'POST',
                asStaff: true,
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: form,
              }),
            );
          }
          for (const answer of answers) {
            expect(answer.status).toBeLessThan(500);
            expect(answer.json?.request?.status ?? 'none').not.toBe('none');
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  }, 600_000);

  it('refuses a date past the supported range with a 400 that names it', async () => {
    for (const path of [
      'item/3?date=99991231',
      'item?date=99991231',
      'item?start_date=99981231&end_date=99991231',
      'item/1/cal?start_date=99991201&end_date=99991231',
      'item/cal?start_date=99991231',
    ]) {
      const { status, json } = await call(path);
      expect(status, path).toBe(400);
      expect(json.request.error.id).toBe('validation_error');
      expect(Object.values(json.request.error.data).join(' ')).toContain('9998-12-31');
    }
  });

  it('rates the last supported date like any other', async () => {
    const { status, json } = await call('item/9?date=99981231', { asStaff: true });
    expect(status).toBe(200);
    expect(json.item.rate.status).toBe('AVAILABLE');
    const cal = await call('item/1/cal?start_date=99981201&end_date=99981231');
    expect(cal.status).toBe(200);
    expect(Object.keys(cal.json.item.cal)).toHaveLength(31);
  });
});
