import type { Db } from '../kernel/storage/database.ts';
import { sessionExpiryShard } from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';

/** A session found in an expiry shard: its key, when it expires (Unix seconds) and the counters it holds. */
export interface ExpiringSession {
  pk: string;
  sk: string;
  expires_at: number;
  holds: Record<string, number>;
}

/**
 * Lists the sessions whose expiry falls in one UTC minute at or before `now`, through gsi1 (one partition
 * per minute, so the sweeper never scans and never reads a hot partition), every page of it.
 */
export async function listSessionsExpiringInMinute(
  db: Db,
  options: { minuteStart: number; now: number },
): Promise<ExpiringSession[]> {
  const records = await queryAll(db, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :shard AND gsi1sk <= :now',
    ExpressionAttributeValues: {
      ':shard': sessionExpiryShard(options.minuteStart),
      ':now': String(options.now).padStart(12, '0'),
    },
  });
  return records.map((item) => ({
    pk: String(item.pk),
    sk: String(item.sk),
    expires_at: Number(item.expires_at),
    holds: (item.holds as Record<string, number> | undefined) ?? {},
  }));
}
