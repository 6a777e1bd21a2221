import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isInactive } from '#lib/bookings/booking.ts';
import { bookingKey, sessionKey, stockKey } from '#lib/kernel/storage/keys.ts';
import { type AuditResult, scanEntities } from './audits.ts';
import type { Ledger } from './traffic.ts';
import type { SoakWorld } from './world.ts';

// The control run's plants (`npm run soak -- --control`): one failure of each kind the audits look for, made
// through the harness's own access to the table and the receiver's log, never through a handler; the run
// passes only if every audit names its plant.

const say = (line: string) => process.stdout.write(`${line}\n`);

/** A planted failure, and the text its audit must name. */
export interface Plant {
  what: string;
  audit: string;
  names: string;
}

/**
 * Plants one failure of each kind the audits look for, through the harness's own access to the table and
 * the receiver's log (never through a handler): a counter bumped without its condition, an acknowledged
 * booking deleted, a delivery dropped, a hold left behind where the sweeper cannot find it, a booking's
 * paid_total bumped past what the provider took, that booking (a paid one) cancelled with its money kept
 * by nobody, another's change_kept bumped by a minor unit, and a unit let go behind a booking's lines.
 */
export async function plant(world: SoakWorld, ledger: Ledger, arrivals: { id: string }[]): Promise<Plant[]> {
  const planted: Plant[] = [];
  const bookings = await scanEntities(world.db, ['booking']);
  const active = bookings.find((booking) => Object.keys(booking.holds ?? {}).length > 0);
  const [counter = ''] = Object.keys(active?.holds ?? {});
  const [itemId = '', slot = ''] = counter.split('|');
  if (counter) {
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: stockKey(Number(itemId), slot),
        UpdateExpression: 'SET used = used + :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    planted.push({
      what: 'a counter bumped without its condition',
      audit: 'units',
      names: `item ${itemId} ${slot}`,
    });
  }
  const told = ledger.acknowledged.at(-1);
  if (told) {
    await world.db.documents.send(
      new DeleteCommand({ TableName: world.db.tableName, Key: bookingKey(told.bookingId) }),
    );
    planted.push({ what: 'an acknowledged booking deleted', audit: 'bookings', names: told.code });
  }
  const dropped = arrivals.find((arrival) => arrival.id);
  if (dropped) {
    const id = dropped.id;
    for (let index = arrivals.length - 1; index >= 0; index -= 1)
      if (arrivals[index]?.id === id) arrivals.splice(index, 1);
    planted.push({ what: 'a webhook delivery dropped', audit: 'webhooks', names: id });
  }
  const sessionId = `soak-planted-${Date.now()}`;
  // On a counter no other plant touches: on the bumped one, its hold would make the bump look accounted for.
  const leakCounter = '3|20991231';
  await world.db.documents.send(
    new PutCommand({
      TableName: world.db.tableName,
      Item: {
        ...sessionKey(sessionId),
        entity: 'session',
        id: sessionId,
        status: 'open',
        holds: { [leakCounter]: 1 },
        lines: {},
        expires_at: Math.floor(Date.now() / 1000) - 600,
        created_at: Math.floor(Date.now() / 1000) - 700,
      },
    }),
  );
  planted.push({ what: 'a hold left behind', audit: 'holds', names: sessionId });
  // Money the provider never took: a paid booking's paid_total bumped (any booking's, when none was paid).
  const holding = new Set(
    (await scanEntities(world.db, ['payment_attempt']))
      .filter((attempt) => Number(attempt.captured) > Number(attempt.refunded) && !attempt.kept)
      .map((attempt) => Number(attempt.booking_id)),
  );
  const others = bookings.filter((booking) => booking.code !== told?.code && booking.payment);
  const paid = others.find(
    (booking) => holding.has(Number(booking.booking_id)) && !isInactive(String(booking.status_id)),
  );
  const bumped = paid ?? others[0];
  if (bumped) {
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: bookingKey(Number(bumped.booking_id)),
        UpdateExpression: 'SET paid_total = paid_total + :amount',
        ExpressionAttributeValues: { ':amount': 500 },
      }),
    );
    planted.push({
      what: "a booking's paid_total bumped",
      audit: 'money',
      names: `booking ${bumped.code}: paid_total`,
    });
  }
  // And money kept by a booking that let go of its stock, though no staff chose to keep it: the paid one
  // cancelled behind everyone's back (no status change of anyone's, so no attempt says kept).
  if (paid) {
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: bookingKey(Number(paid.booking_id)),
        UpdateExpression: 'SET status_id = :cancelled',
        ExpressionAttributeValues: { ':cancelled': 'CANCELLED' },
      }),
    );
    planted.push({
      what: 'a paid booking cancelled, its money kept by nobody',
      audit: 'money',
      names: `booking ${paid.code} (CANCELLED) holds no stock`,
    });
  }
  // What a booking keeps beyond its total, one minor unit more than its changes kept (issue 44): a changed
  // booking's when there is one.
  const spared = new Set([told?.code, bumped?.code, paid?.code]);
  const unplanted = bookings.filter((booking) => !spared.has(booking.code));
  const keeper = unplanted.find((booking) => Number(booking.change_kept ?? 0) > 0) ?? unplanted[0];
  if (keeper) {
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: bookingKey(Number(keeper.booking_id)),
        UpdateExpression: 'SET change_kept = if_not_exists(change_kept, :zero) + :one',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      }),
    );
    planted.push({
      what: "a booking's change_kept bumped by one minor unit",
      audit: 'money',
      names: `booking ${keeper.code}: change_kept`,
    });
  }
  // And a unit a booking's lines still take let go behind them: its holds and its counter lowered together,
  // so the counter still equals its holders (reconcile sees nothing) and only the booking's lines tell. On a
  // booking whose counters no other plant touches.
  const touched = new Set([counter, ...Object.keys(paid?.holds ?? {})]);
  const loser = bookings.find(
    (booking) =>
      !spared.has(booking.code) &&
      !isInactive(String(booking.status_id)) &&
      Object.keys(booking.holds ?? {}).length > 0 &&
      Object.keys(booking.holds ?? {}).every((id) => !touched.has(id)),
  );
  const [lost = ''] = Object.keys(loser?.holds ?? {});
  if (loser && lost) {
    const [lostItem = '', lostSlot = ''] = lost.split('|');
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: bookingKey(Number(loser.booking_id)),
        UpdateExpression: 'SET holds.#counter = holds.#counter - :one',
        ExpressionAttributeNames: { '#counter': lost },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    await world.db.documents.send(
      new UpdateCommand({
        TableName: world.db.tableName,
        Key: stockKey(Number(lostItem), lostSlot),
        UpdateExpression: 'SET used = used - :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    planted.push({
      what: "a unit let go behind a booking's lines",
      audit: 'units',
      names: `booking ${loser.code}: holds`,
    });
  }
  return planted;
}

/** A control run passes when every audit named its plant. */
export function controlVerdict(planted: Plant[], audits: AuditResult[]): number {
  let missed = 0;
  for (const plant of planted) {
    const audit = audits.find((entry) => entry.name.startsWith(plant.audit));
    const named = audit?.problems.some((problem) => problem.includes(plant.names)) ?? false;
    say(`${named ? 'seen  ' : 'MISSED'} ${plant.what} (${plant.names}) by the ${plant.audit} audit`);
    if (!named) missed += 1;
  }
  return missed === 0 && planted.length === 8 ? 0 : 1;
}
