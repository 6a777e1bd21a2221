import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { clientZoneKey } from '../kernel/storage/keys.ts';
import { applyIfCondition } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import { type Cooldown, type HoldPeriod, holdingParts, KEEP_SECONDS } from './budget-repository.ts';

// A client's record of a stay zone (see zones.ts) keeps what its record of an item-date keeps for the
// re-hold cooldown, and nothing of its share: the carts of the client that hold something in the zone
// (`carts`), since when (`anchor`), and the cooldown its last let-go started (`cooldown_until`,
// `cooldown_session`). Its own entity, so that reconcile, which audits the shares, passes it by.

/**
 * A cart's first hold in a stay zone: it waits for the client's cooldown of the zone (unless this cart
 * started it and takes back what it let go) and starts, joins or restarts the client's holding of it.
 */
export function holdZoneAction(
  db: Db,
  options: { client: string; zoneId: string; cart: string; period: HoldPeriod; nowSeconds: number },
): TransactItem {
  const holding = holdingParts(options.cart, options.period, options.nowSeconds);
  const sets = ['entity = :entity', '#ttl = :ttl', ...holding.sets];
  return {
    Update: {
      TableName: db.tableName,
      Key: clientZoneKey(options.client, options.zoneId),
      UpdateExpression: `${holding.adds.length ? `ADD ${holding.adds.join(', ')} ` : ''}SET ${sets.join(', ')}`,
      ConditionExpression: holding.conditions.join(' AND '),
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':entity': 'client_zone',
        ':ttl': options.nowSeconds + KEEP_SECONDS,
        ...holding.values,
      },
    },
  };
}

/**
 * A cart's last hold in a stay zone let go of (never refused): the cart leaves the zone's `carts`, and with
 * a `cooldown` the client may not start holding in the zone again before its end, but from that cart.
 */
export function releaseZoneAction(
  db: Db,
  options: { client: string; zoneId: string; cart: string; cooldown?: Cooldown | undefined },
): TransactItem {
  const { cooldown } = options;
  return {
    Update: {
      TableName: db.tableName,
      Key: clientZoneKey(options.client, options.zoneId),
      UpdateExpression: `DELETE carts :cart SET entity = :entity${cooldown ? ', cooldown_until = :until, cooldown_session = :session, #ttl = :ttl' : ''}`,
      ...(cooldown ? { ExpressionAttributeNames: { '#ttl': 'ttl' } } : {}),
      ExpressionAttributeValues: {
        ':cart': new Set([options.cart]),
        ':entity': 'client_zone',
        ...(cooldown
          ? {
              ':until': cooldown.until,
              ':session': cooldown.sessionId,
              ':ttl': Math.max(cooldown.until, cooldown.nowSeconds) + KEEP_SECONDS,
            }
          : {}),
      },
    },
  };
}

/**
 * Takes a booked cart out of its client's stay zone records, after the booking's transaction (which has no
 * room for it): the client's next hold in the zone then starts its holding at the first try, instead of
 * failing on the booked cart, reading the client's carts and trying again. A zone another write changed
 * meanwhile is left to that path, which stays right without this.
 */
export async function leaveZonesAfterBooking(
  db: Db,
  options: { client: string; cart: string; zoneIds: string[] },
): Promise<void> {
  await Promise.all(
    options.zoneIds.map((zoneId) =>
      applyIfCondition(() =>
        db.documents.send(
          new UpdateCommand({
            TableName: db.tableName,
            Key: clientZoneKey(options.client, zoneId),
            UpdateExpression: 'DELETE carts :cart',
            ConditionExpression: 'contains(carts, :id)',
            ExpressionAttributeValues: { ':cart': new Set([options.cart]), ':id': options.cart },
          }),
        ),
      ),
    ),
  );
}
