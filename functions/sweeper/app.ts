import type { Db } from '#lib/db/client.ts';
import { type ExpiringSession, listSessionsExpiringInMinute } from '#lib/db/session-expiry-repository.ts';
import { sweepMinutes } from '#lib/domain/sweep.ts';
import { logger } from '#lib/http/logger.ts';

/** Releases one expired session's holds, conditioned on it still holding and still expired. */
export type ReleaseExpiredSession = (session: ExpiringSession, now: number) => Promise<boolean>;

/** What one sweep did. */
export interface SweepReport {
  found: number;
  released: number;
}

/**
 * The scheduled sweeper: reads the expiry shards of the last hour through the index and hands each
 * expired session to `release`. Session holds (and so `release`) arrive with the session issue; until
 * then no session can exist and a sweep finds nothing.
 */
export const createSweeper =
  (options: { db: Db; release?: ReleaseExpiredSession; clock?: () => number }) =>
  async (): Promise<SweepReport> => {
    const now = Math.floor((options.clock ?? Date.now)() / 1000);
    const shards = await Promise.all(
      sweepMinutes(now).map((minuteStart) => listSessionsExpiringInMinute(options.db, { minuteStart, now })),
    );
    const expired = shards.flat();
    let released = 0;
    for (const session of expired) {
      if (!options.release) {
        logger.error('expired session found but session release is not built', { session: session.pk });
        continue;
      }
      if (await options.release(session, now)) released += 1;
    }
    if (expired.length > 0) logger.info('sweep', { found: expired.length, released });
    return { found: expired.length, released };
  };
