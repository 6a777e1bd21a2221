import type { Db } from '#lib/db/client.ts';
import { listSessionsExpiringInMinute } from '#lib/db/session-expiry-repository.ts';
import { getSweptUntil, putSweptUntil } from '#lib/db/sweeper-state-repository.ts';
import { releaseExpiredSession } from '#lib/domain/session.ts';
import { sweepMinutes } from '#lib/domain/sweep.ts';
import { logger } from '#lib/http/logger.ts';

/** What one sweep did. */
export interface SweepReport {
  minutes: number;
  found: number;
  released: number;
}

const BATCH = 10;
const REREAD_SECONDS = 120;

/**
 * The scheduled sweeper: reads the sessions that expired since the last complete sweep through the
 * expiry-minute shards of gsi1 (never a scan) and releases each in its own conditional transaction.
 */
export const createSweeper =
  (options: { db: Db; clock?: () => number }) => async (): Promise<SweepReport> => {
    const nowMs = (options.clock ?? Date.now)();
    const now = Math.floor(nowMs / 1000);
    const minutes = sweepMinutes(now, await getSweptUntil(options.db));
    let found = 0;
    let released = 0;
    for (let start = 0; start < minutes.length; start += BATCH) {
      const shards = await Promise.all(
        minutes
          .slice(start, start + BATCH)
          .map((minuteStart) => listSessionsExpiringInMinute(options.db, { minuteStart, now })),
      );
      for (const session of shards.flat()) {
        found += 1;
        const sessionId = session.pk.slice('SESSION#'.length);
        if (await releaseExpiredSession(options.db, { sessionId, now: nowMs })) released += 1;
      }
    }
    // Re-read the last few minutes next time: an API instance's clock may lag the sweeper's a little.
    await putSweptUntil(options.db, (minutes.at(-1) ?? Math.floor(now / 60) * 60) - REREAD_SECONDS);
    if (found > 0) logger.info('sweep', { minutes: minutes.length, found, released });
    return { minutes: minutes.length, found, released };
  };
