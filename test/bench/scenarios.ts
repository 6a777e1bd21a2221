import autocannon from 'autocannon';
import { addDays, type Ymd } from '#lib/kernel/dates.ts';
import type { FloorRequest } from './floor.ts';
import { asClients } from './server.ts';

/** One load scenario: its name, how to run it at a concurrency, and how many requests make one unit. */
export interface Scenario {
  name: string;
  run: (connections: number) => Promise<autocannon.Result>;
  /** Requests per unit of work (the full flow: 3 requests a flow). */
  per?: number;
}

const form = 'application/x-www-form-urlencoded';

/**
 * How many different start dates the new-dates list goes through before it asks one again: more searches
 * of the 200 items than the items function keeps (`KEPT_WIRE_CHARS`), so each rates every item anew.
 */
export const NEW_DATES = 730;
/** The start date of the new-dates list's `n`-th request. */
export const nthStart = (start: Ymd, n: number): Ymd => addDays(start, n % NEW_DATES);

/** The load scenarios against a running service, each for `seconds`. */
export function loadScenarios(options: {
  base: string;
  /** The rated-list query: dates and parameters. */
  rated: string;
  start: Ymd;
  /** A SLIP of item 1 over the rated dates, for adding to sessions. */
  slip: string;
  /** The path of the feed item's channel feed, with its token. */
  feed: string;
  seconds: number;
}): Scenario[] {
  const { base, rated, start, slip, feed, seconds: duration } = options;
  const get = (path: string) => (connections: number) =>
    autocannon({ url: `${base}${path}`, connections, duration, ...asClients() });
  return [
    { name: 'unrated list', run: get('/item') },
    { name: 'rated list, 7 nights', run: get(`/item?${rated}`) },
    {
      // The same list, each request for other dates than any before it: what a list costs when nothing
      // the items function kept from earlier searches applies.
      name: 'rated list, 7 nights, new dates',
      run: (connections) => {
        let asked = 0;
        const later = rated.replace(/start_date=\d+&end_date=\d+/, '');
        return autocannon({
          url: base,
          connections,
          duration,
          ...asClients(),
          requests: [
            {
              method: 'GET',
              setupRequest: (request) => {
                const first = nthStart(start, asked++);
                return {
                  ...request,
                  path: `/api/3.0/item?start_date=${first}&end_date=${addDays(first, 7)}${later}`,
                };
              },
            },
          ],
        });
      },
    },
    { name: 'rated item, 7 nights', run: get(`/item/1?${rated}`) },
    {
      name: 'calendar, 90 days',
      run: get(`/item/1/cal?start_date=${start}&end_date=${addDays(start, 89)}`),
    },
    // What Airbnb or Booking.com polls: one item's channel feed over the 365 days it sells.
    { name: 'channel feed, 365 days', run: get(feed) },
    {
      name: 'add a SLIP',
      run: (connections) =>
        autocannon({
          url: `${base}/booking/session`,
          connections,
          duration,
          method: 'POST',
          body: `slip[]=${slip}`,
          ...asClients({ 'content-type': form }),
        }),
    },
    {
      name: 'full flow (rate, add, create)',
      per: 3,
      run: (connections) =>
        autocannon({
          url: base,
          connections,
          duration,
          // The client's headers go on every request of the flow (a request's own headers would replace them).
          ...asClients({ 'content-type': form }),
          requests: [
            {
              method: 'GET',
              path: `/api/3.0/item/1?${rated}`,
              onResponse: (_status, body, context) => {
                (context as Record<string, unknown>).slip = JSON.parse(body).item?.rate?.slip;
              },
            },
            {
              method: 'POST',
              path: '/api/3.0/booking/session',
              setupRequest: (request, context) => ({
                ...request,
                body: `slip[]=${(context as Record<string, unknown>).slip}`,
              }),
              onResponse: (_status, body, context) => {
                (context as Record<string, unknown>).session = JSON.parse(body).booking?.session?.id;
              },
            },
            {
              method: 'POST',
              path: '/api/3.0/booking/create',
              setupRequest: (request, context) => ({
                ...request,
                body: `session_id=${(context as Record<string, unknown>).session}&form[customer_name]=Bench&form[customer_email]=bench@example.com`,
              }),
            },
          ],
        }),
    },
  ];
}

/** The contention race: 100 clients, one request each, for the same SLIP. */
export const raceFor = (base: string, slip: string) =>
  autocannon({
    url: `${base}/booking/session`,
    connections: 100,
    amount: 100,
    method: 'POST',
    body: `slip[]=${slip}`,
    ...asClients({ 'content-type': form }),
  });

/** What the service answers each kind of request of the scenarios with, for the ceiling server to send. */
export async function serviceBodies(options: {
  base: string;
  rated: string;
  start: Ymd;
  slip: string;
  feed: string;
}): Promise<Record<FloorRequest, string>> {
  const { base, rated, start, slip, feed } = options;
  const text = async (path: string, init?: RequestInit) => (await fetch(`${base}${path}`, init)).text();
  const post = (path: string, body: string) =>
    text(path, { method: 'POST', headers: { 'content-type': form }, body });
  const added = await post('/booking/session', `slip[]=${slip}`);
  const session = JSON.parse(added).booking?.session?.id;
  return {
    unratedList: await text('/item'),
    ratedList: await text(`/item?${rated}`),
    ratedItem: await text(`/item/1?${rated}`),
    calendar: await text(`/item/1/cal?start_date=${start}&end_date=${addDays(start, 89)}`),
    channelFeed: await text(feed),
    addSlip: added,
    create: await post(
      '/booking/create',
      `session_id=${session}&form[customer_name]=Bench&form[customer_email]=bench@example.com`,
    ),
  };
}
