import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { addDays, todayIn, type Ymd } from '#lib/kernel/dates.ts';
import { makeEvent, type TestRequest } from '#test/support/events.ts';
import type { SynthedFunction } from './bundles.ts';
import type { FloorScript } from './cold-floor-handler.ts';

/** What one cold process answered (the handler's result). */
export type ColdResponse = { statusCode?: number; body?: string } & Record<string, unknown>;

/** Runs a bundle once on an event in a fresh process, untimed (cold.ts `probeColdStart`), in `env` if given. */
export type RunOnce = (
  bundle: SynthedFunction,
  event: APIGatewayProxyEventV2,
  env?: Record<string, string>,
) => Promise<ColdResponse>;

/** A request of the cold benchmark: the function that answers it, its events and its floor's substitutions. */
export interface ColdCase {
  function: string;
  request: string;
  /** The case's environment over the cold benchmark's (a paying tenant's table and the provider's keys). */
  env?: Record<string, string>;
  /**
   * Run `index`'s request (run 0 is the recording's): each run comes from a client address of its own.
   * Called once per process, function's and floor's alike, before the clock starts.
   */
  event(index: number): Promise<APIGatewayProxyEventV2>;
  /**
   * What a floor run writes in place of what the recording wrote (beyond the client address, which every
   * case substitutes), in its calls and its answer alike: the ids the recorded request created or named.
   */
  substitutions?(
    recorded: { event: APIGatewayProxyEventV2; script: FloorScript },
    run: {
      event: APIGatewayProxyEventV2;
      index: number;
    },
  ): [string, string][];
}

/** An address of TEST-NET-3 for run `index`: each cold process is a client of its own. */
export const addressOf = (index: number) => `203.0.${113 + Math.floor(index / 250)}.${(index % 250) + 1}`;

/** The start date of the cold benchmark's stays, as the steady-state benchmark's. */
export const coldStart = (): Ymd => addDays(todayIn('America/Toronto', Date.now()), 60);

export const bodyOf = <T>(response: ColdResponse | undefined): T => JSON.parse(response?.body ?? '{}') as T;

export const ask = (req: TestRequest, sourceIp: string) =>
  makeEvent({ ...req, sourceIp, headers: { 'user-agent': 'cold-bench', ...req.headers } });

export const addSlip = (slip: string, sourceIp: string) =>
  ask(
    {
      method: 'POST',
      path: 'booking/session',
      body: `slip=${encodeURIComponent(slip)}`,
      contentType: 'application/x-www-form-urlencoded',
    },
    sourceIp,
  );

/** The form's required fields, as the widget fills them (the bench tenant's form: a name and an email). */
const FORM = { customer_name: 'Bench', customer_email: 'bench@example.com' };

/** A create as the widget sends it (widget/src/api.ts `book`): JSON, the session id, the form, a key. */
export const create = (sessionId: string, sourceIp: string) =>
  ask(
    {
      method: 'POST',
      path: 'booking/create',
      body: JSON.stringify({ session_id: sessionId, form: FORM }),
      contentType: 'application/json',
      headers: { 'idempotency-key': `cold-${randomUUID()}` },
    },
    sourceIp,
  );

const sessionOf = (event: APIGatewayProxyEventV2) =>
  (JSON.parse(event.body ?? '{}') as { session_id: string }).session_id;

/**
 * What a create's floor run writes in place of the recording's: the run's open session, a fresh idempotency
 * record, a booking number the counter never reaches and a code of its own (docs/benchmark.md, "Cold starts").
 */
export const createSubstitutions: NonNullable<ColdCase['substitutions']> = ({ event, script }, run) => {
  const calls = JSON.stringify(script.batches);
  const booking = bodyOf<{ booking: { booking_id: number; code: string } }>(
    script.response as ColdResponse,
  ).booking;
  const number = String(booking.booking_id).padStart(10, '0');
  // The booking's keys end in its padded number; a customer's must not, or they would change too.
  if (calls.includes(`CUSTOMER#${number}`) || calls.includes(`CUSTOMER_BOOKINGS#${number}`))
    throw new Error('the recorded booking and its customer share a number');
  const idempotency = /"booking-create#([^"]+)"/.exec(calls)?.[1];
  if (!idempotency) throw new Error('the recorded create wrote no idempotency record');
  return [
    [sessionOf(event), sessionOf(run.event)],
    [`booking-create#${idempotency}`, `booking-create#${randomBytes(16).toString('base64')}`],
    [`#${number}`, `#${String(9_000_000_000 + run.index)}`],
    [booking.code, `${booking.code.slice(0, -6)}F${String(run.index).padStart(5, '0')}`],
  ];
};

/**
 * The cases of the cold benchmark on the bench tenant (test/bench/tenant.ts) from `start`. Each create's
 * open session (one SLIP, one unit for 7 nights of an item with 100 000 units) is added by the session
 * bundle, untimed, from the run's address; one create before the recording makes the customer a
 * returning one, so the recording writes no customer that a floor run would write again.
 */
export async function coldCases(options: {
  start: Ymd;
  slip: string;
  functions: SynthedFunction[];
  runOnce: RunOnce;
}): Promise<ColdCase[]> {
  const { start, slip, runOnce } = options;
  const bundle = (name: string) => {
    const fn = options.functions.find((one) => one.function === name);
    if (!fn) throw new Error(`no bundle for ${name}`);
    return fn;
  };
  const openSession = async (sourceIp: string) => {
    const added = await runOnce(bundle('Session'), addSlip(slip, sourceIp));
    if (added.statusCode !== 200)
      throw new Error(`no session to book: ${JSON.stringify(added).slice(0, 300)}`);
    return bodyOf<{ booking: { session: { id: string } } }>(added).booking.session.id;
  };
  const returning = await runOnce(bundle('Bookings'), create(await openSession('192.0.2.1'), '192.0.2.1'));
  if (returning.statusCode !== 200)
    throw new Error(`the first create answered ${JSON.stringify(returning).slice(0, 300)}`);
  const request = (req: TestRequest) => async (index: number) => ask(req, addressOf(index));
  return [
    { function: 'Meta', request: 'company', event: request({ path: 'company' }) },
    {
      function: 'Items',
      request: 'rated item, 7 nights',
      event: request({
        path: 'item/1',
        query: `start_date=${start}&end_date=${addDays(start, 7)}&param[adults]=2&param[children]=1`,
      }),
    },
    {
      function: 'Session',
      request: 'add a SLIP (new session)',
      event: async (index) => addSlip(slip, addressOf(index)),
      // The new session's id: each floor run writes a fresh one in its place, as each function run creates its own.
      substitutions: ({ script }) => {
        const id = bodyOf<{ booking: { session: { id: string } } }>(script.response as ColdResponse).booking
          .session.id;
        return [[id, `${id.slice(0, -8)}${randomUUID().slice(0, 8)}`]];
      },
    },
    { function: 'Bookings', request: 'booking form', event: request({ path: 'booking/form' }) },
    {
      function: 'Bookings',
      request: 'create (session with a SLIP)',
      event: async (index) => create(await openSession(addressOf(index)), addressOf(index)),
      substitutions: createSubstitutions,
    },
  ];
}
