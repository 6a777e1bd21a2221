import { type PaymentChoice, settle } from './provider.ts';
import type { SOAK_ITEMS } from './tenant.ts';
import { type Answer, call, dayOf, type Ledger, type Random, STAFF, sleep } from './traffic.ts';
import type { StandInAddress } from './world.ts';

// A paying guest's own booking from its manage link (issue 44): a cancel (the quote, then the cancel holding
// to it), and changes of dates and party (the quote, then the change holding to it; a higher price paid
// through a checkout on the stand-in as the soak pays bookings, or left unpaid for the sweeper to lapse).
// A refusal the service gives for a good reason (sold out, a payment not in yet, another change waiting) is
// an answer a guest reads: it is recorded as the change's outcome, never as a failure.

/** Where and as whom a guest calls, and the guest's own draws. */
export interface ManageOptions {
  base: string;
  standIn: StandInAddress;
  random: Random;
  headers: Record<string, string>;
}

/** What a guest tries: other dates, a larger or a smaller party, or the last unit of other dates. */
export type ChangeKind = 'move' | 'grow' | 'shrink' | 'race';

/** A guest's change as the traffic saw it. */
export interface ChangeSeen {
  code: string;
  kind: ChangeKind;
  /** `made` at once; `paid` or `unpaid` (a difference through a checkout); else the refusal's reason. */
  outcome: string;
  /** What the answer said comes back and what the policy keeps, in minor units. */
  refund: number;
  kept: number;
  /** A race's rival: whether its cart got the same units, and whether they were the last ones left. */
  rival?: 'held' | 'refused';
  last?: boolean;
}

/** What a guest was told their booking is: its total as money, and its first date (YYYYMMDD). */
export interface BookingState {
  total: string;
  start: string;
}

/** A paying guest's booking as the traffic knows it (its draws, as it is now). */
export interface OwnBooking {
  code: string;
  token: string;
  total: string;
  item: (typeof SOAK_ITEMS)[number];
  /** Days after the traffic's first day where it starts, and its span as the rating asked it. */
  first: number;
  span: number;
  /** The party (`param[qty]`) and the line's quantity: it takes party × qty units a day. */
  party: number;
  lineQty: number;
  /** Whether its deposit was paid: until then a change is refused (`awaiting_payment`). */
  paid: boolean;
}

/** Reasons a guest looks again a moment later: a payment on its way, or a change just made. */
const LOOK_AGAIN = new Set(['change_pending', 'quote_changed']);
/** Money as the answers write it, in minor units (the soak tenant's currency has two decimals). */
const minor = (money: unknown) => Math.round(Number(money) * 100);

/** A refusal's reason as a client reads it: `data.reason` when it is a code, else the error's id. */
function reasonOf(answer: Answer): string {
  const error = answer.json?.request?.error;
  const reason = String(error?.data?.reason ?? '');
  return /^[a-z_]+$/.test(reason) ? reason : String(error?.id ?? answer.status);
}

/**
 * A guest changes their booking (issue 44): other dates the calendar shows open, at the same price (30 %), a
 * larger party paid through a checkout (30 %), a smaller one (25 %; a party of one first grows and pays, then
 * goes back, and gets the policy's share back), or a race with another guest's cart for the last units of
 * other dates (15 %).
 */
export async function changeOwn(ledger: Ledger, options: ManageOptions, booking: OwnBooking): Promise<void> {
  const pick = options.random.next();
  if (pick < 0.3) await move(ledger, options, booking);
  else if (pick < 0.6) await tryChange(ledger, options, booking, 'grow', { party: booking.party + 1 });
  else if (pick < 0.85) {
    if (booking.party === 1) {
      const grown = await tryChange(ledger, options, booking, 'grow', { party: 2 });
      if (grown.outcome !== 'paid' && grown.outcome !== 'made') return;
    }
    await tryChange(ledger, options, booking, 'shrink', { party: booking.party - 1 });
  } else await race(ledger, options, booking);
}

/** Days a booking's counters cover: its nights, or its days. */
const daysOf = (booking: OwnBooking) => (booking.item.unit === 'N' ? booking.span : booking.span + 1);

/** The item's calendar over the traffic's weeks: units left a day (staff), or whether any is (a guest). */
async function calendar(ledger: Ledger, options: ManageOptions, booking: OwnBooking, staff: boolean) {
  const read = await call(ledger, {
    base: options.base,
    route: 'item.cal',
    path: `item/${booking.item.item_id}/cal?start_date=${dayOf(0)}&end_date=${dayOf(21 + daysOf(booking))}`,
    headers: staff ? { authorization: STAFF } : options.headers,
  });
  const cal = (read.json?.item?.cal ?? {}) as Record<string, number>;
  /** The fewest left over the days from `first` on. */
  return (first: number) =>
    Math.min(...Array.from({ length: daysOf(booking) }, (_, day) => cal[dayOf(first + day)] ?? 0));
}

/** Other dates at the same price: the guest reads the calendar and picks dates it shows open. */
async function move(ledger: Ledger, options: ManageOptions, booking: OwnBooking): Promise<void> {
  const left = await calendar(ledger, options, booking, false);
  const open = Array.from({ length: 21 }, (_, first) => first).filter(
    (first) => first !== booking.first && left(first) > 0,
  );
  const first =
    open.length > 0 ? options.random.pick(open) : (booking.first + 1 + options.random.int(20)) % 21;
  await tryChange(ledger, options, booking, 'move', { first });
}

/**
 * The race for the last units: the dates (not overlapping the booking's) where its item has exactly the units
 * the booking takes left, or the fewest more; another guest's cart asks for them at the same moment as the
 * change. Exactly one may have them; a change refused `sold_out` is a fine answer.
 */
async function race(ledger: Ledger, options: ManageOptions, booking: OwnBooking): Promise<void> {
  const { item, span } = booking;
  const days = daysOf(booking);
  const leftFrom = await calendar(ledger, options, booking, true);
  const needs = booking.party * booking.lineQty;
  let target: { first: number; left: number } | undefined;
  for (let first = 0; first < 21; first += 1) {
    if (first < booking.first + days && booking.first < first + days) continue;
    const left = leftFrom(first);
    if (left >= needs && (!target || left < target.left)) target = { first, left };
  }
  const first = target?.first ?? (booking.first + days + options.random.int(21 - days)) % 21;
  const rivalHeaders = { 'x-forwarded-for': `192.0.2.${1 + options.random.int(250)}` };
  const rated = await call(ledger, {
    base: options.base,
    route: 'item.get',
    path: `item/${item.item_id}?start_date=${dayOf(first)}&end_date=${dayOf(first + span)}&param[qty]=${needs}`,
    headers: rivalHeaders,
  });
  const slip = rated.json?.item?.rate?.slip as string | undefined;
  let rival: ChangeSeen['rival'];
  let session: string | undefined;
  const rivalAdds = async () => {
    if (!slip) return;
    const added = await call(ledger, {
      base: options.base,
      route: 'session.add',
      path: 'booking/session',
      form: { 'slip[]': slip },
      headers: rivalHeaders,
    });
    rival = added.status === 200 ? 'held' : 'refused';
    session = added.json?.booking?.session?.id as string | undefined;
  };
  const seen = await tryChange(ledger, options, booking, 'race', { first }, rivalAdds);
  // The rival holds what it got until both have their answers, then lets it go.
  if (session)
    await call(ledger, {
      base: options.base,
      route: 'session.end',
      path: 'booking/session/end',
      form: { session_id: session },
      headers: rivalHeaders,
    });
  if (rival) Object.assign(seen, { rival, last: target?.left === needs });
}

/**
 * The quote, then the change holding to it (the rival's call at the same moment, in a race); looked at again
 * while a payment or another change is on its way. A change that waits for its difference is paid (or not)
 * on the stand-in's checkout. Records how it ended (and answers it) and what the guest was told.
 */
async function tryChange(
  ledger: Ledger,
  options: ManageOptions,
  booking: OwnBooking,
  kind: ChangeKind,
  request: { first?: number; party?: number },
  alongside?: () => Promise<void>,
): Promise<ChangeSeen> {
  const first = request.first ?? booking.first;
  const party = request.party ?? booking.party;
  const asked = {
    token: booking.token,
    ...(request.first !== undefined ? { start_date: dayOf(first) } : {}),
    ...(request.party !== undefined ? { 'param[qty]': String(party) } : {}),
  };
  const path = `booking/${booking.code}/manage/change`;
  const states = ledger.changed.get(booking.code) ?? [{ total: booking.total, start: dayOf(booking.first) }];
  ledger.changed.set(booking.code, states);
  const seen: ChangeSeen = { code: booking.code, kind, outcome: '', refund: 0, kept: 0 };
  ledger.changes.push(seen);
  const made = (total: string) => {
    states.push({ total, start: dayOf(first) });
    Object.assign(booking, { first, party, total });
  };
  const ask = (quote?: string) =>
    call(ledger, {
      base: options.base,
      route: quote ? 'booking.manage.change' : 'booking.manage.change.quote',
      path: quote ? path : `${path}?${new URLSearchParams(asked)}`,
      ...(quote ? { form: { ...asked, quote } } : {}),
      headers: options.headers,
    });
  const waits = (answer: Answer) =>
    LOOK_AGAIN.has(reasonOf(answer)) || (booking.paid && reasonOf(answer) === 'awaiting_payment');
  for (let look = 0; look < 6; look += 1) {
    if (look > 0) await sleep(2_000);
    const quoted = await ask();
    if (quoted.status !== 200) {
      seen.outcome = reasonOf(quoted);
      if (waits(quoted)) continue;
      return seen;
    }
    const quote = quoted.json?.change as { quote: string; to: { total: string } };
    const racing = alongside;
    alongside = undefined;
    const [done] = await Promise.all([ask(quote.quote), racing?.()]);
    if (done.status !== 200) {
      seen.outcome = reasonOf(done);
      if (waits(done)) continue;
      return seen;
    }
    const change = done.json?.change;
    seen.refund = minor(change?.refund);
    seen.kept = minor(change?.kept);
    if (change?.made) {
      made(String(done.json?.booking?.total));
      seen.outcome = 'made';
      return seen;
    }
    let url = change?.payment?.url as string | undefined;
    // The provider failed as the checkout opened: the guest tries again, and the same change answers with it.
    if (!url) {
      await sleep(2_000);
      url = (await ask(quote.quote)).json?.change?.payment?.url as string | undefined;
    }
    const choice: PaymentChoice = await settle(ledger, options.standIn, options.random, url);
    const paid = choice === 'paid' || choice === 'declined, then paid';
    if (paid) made(quote.to.total);
    seen.outcome = paid ? 'paid' : 'unpaid';
    return seen;
  }
  return seen;
}

/**
 * A guest cancels their own booking as the manage page does: the quote, then the cancel holding to it (a
 * 409 `quote_changed`, when a payment arrived meanwhile, is read again once).
 */
export async function cancelOwn(
  ledger: Ledger,
  options: Pick<ManageOptions, 'base' | 'headers'>,
  booking: { code: string; token: string },
): Promise<void> {
  const path = `booking/${booking.code}/manage/cancel`;
  const token = encodeURIComponent(booking.token);
  for (let look = 0; look < 2; look += 1) {
    const quoted = await call(ledger, {
      base: options.base,
      route: 'booking.manage.cancel.quote',
      path: `${path}?token=${token}`,
      headers: options.headers,
    });
    const quote = quoted.json?.cancellation?.quote as string | undefined;
    if (quoted.status !== 200 || !quote) return;
    const done = await call(ledger, {
      base: options.base,
      route: 'booking.manage.cancel',
      path,
      form: { token: booking.token, quote },
      headers: options.headers,
    });
    if (done.status === 200) {
      ledger.restatused.add(booking.code);
      ledger.guestCancelled.set(booking.code, String(done.json?.cancellation?.refund));
      return;
    }
    if (done.json?.request?.error?.data?.reason !== 'quote_changed') return;
  }
}

/**
 * How the guests' changes ended, by kind and outcome (with how many gave money back, and how races' rivals
 * fared), as counts for the results and a line for the run's summary.
 */
export function summariseChanges(changes: ChangeSeen[]) {
  const counts: Record<string, Record<string, number>> = {};
  const bump = (kind: string, what: string) => {
    counts[kind] ??= {};
    counts[kind][what] = (counts[kind][what] ?? 0) + 1;
  };
  for (const change of changes) {
    bump(change.kind, change.outcome);
    if (change.refund > 0) bump(change.kind, 'refunded');
    if (change.kept > 0) bump(change.kind, 'kept');
    // Both the change and its rival holding the last units would be one sold twice, unless a hold let go
    // between the calendar's read and the race.
    if (change.rival)
      bump(
        change.kind,
        change.last && change.rival === 'held' && change.outcome === 'made'
          ? 'both got the last units'
          : `rival ${change.rival}${change.last ? ' (the last units)' : ''}`,
      );
  }
  const line = Object.entries(counts)
    .map(
      ([kind, outcomes]) =>
        `${kind} ${Object.entries(outcomes)
          .map(([what, count]) => `${what} ${count}`)
          .join(', ')}`,
    )
    .join('; ');
  return { counts, line: `${changes.length} tried${line ? `: ${line}` : ''}` };
}
