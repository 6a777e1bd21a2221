import { lapseUnpaidPayments, voidUnpaidBookings } from '#lib/bookings/index.ts';
import { getConfig } from '#lib/config/index.ts';
import { getSweptUntil, putSweptUntil, releaseRounds, sweepMinutes } from '#lib/housekeeping/index.ts';
import { METRIC } from '#lib/kernel/metric-names.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import type { ProviderSource } from '#lib/payments/index.ts';
import { logger } from '#lib/runtime/logger.ts';
import type { Meter } from '#lib/runtime/metrics.ts';
import {
  type ExpiringSession,
  listSessionsExpiringInMinute,
  reholdCooldownOf,
  releaseExpiredSession,
} from '#lib/sessions/index.ts';

/** What one sweep did, and how far behind it is. */
export interface SweepReport {
  minutes: number;
  found: number;
  released: number;
  /** Releases that threw (contention, a transient error): retried by the next sweep. */
  failed: number;
  /** Whether every minute read was worked through within the budget. */
  complete: boolean;
  /** Age in seconds of the oldest expired session found still holding, before this sweep. */
  oldestFoundSeconds: number;
  /** Age in seconds of the oldest expired session still holding after this sweep (0 when none is left). */
  lagSeconds: number;
  /** Customers' bookings voided because they stayed unpaid (`settings.void_unpaid_after_hours`). */
  voidedUnpaid: number;
  /** Bookings that lapsed unpaid at their payment deadline (`settings.payment`, issue 43). */
  lapsedPayments: number;
}

/** Minute shards read at once. */
const SHARDS_AT_ONCE = 10;
/** Releases run at once: enough to clear thousands a minute, few enough not to throttle the table. */
const RELEASES_AT_ONCE = 16;
/** Re-read the last minutes next time: an API instance's clock may lag the sweeper's a little. */
const REREAD_SECONDS = 120;
/** How long one sweep works before it stops and leaves the rest to the next (well inside a Lambda timeout). */
export const DEFAULT_SWEEP_BUDGET_MS = 40_000;

/**
 * What a sweep reports to CloudWatch: the sessions it released and how far behind it is, each only when
 * there is something to say. A run that found nothing emits no metric (a custom metric is billed for every
 * hour it receives a value); whether the sweeper runs at all is read from its AWS/Lambda Invocations, which
 * AWS publishes for free, and the lag alarm reads a missing lag as none.
 */
export function meterSweep(meter: Meter, report: SweepReport): void {
  if (report.released > 0) meter.count(METRIC.sweeperReleases, report.released);
  if (report.lagSeconds > 0) meter.seconds(METRIC.sweeperLagSeconds, report.lagSeconds);
}

const sessionIdOf = (session: ExpiringSession) => session.pk.slice('SESSION#'.length);

/**
 * The scheduled sweeper: reads the sessions that expired since the last complete sweep through the
 * expiry-minute shards of gsi1 (never a scan) and releases each in its own conditional transaction,
 * many at once but never two that share a counter. It works for at most `budgetMs`; the watermark
 * never passes a minute it did not finish, so a backlog is worked through over several runs, and a
 * failed release is retried by the next. It logs how far behind it is.
 */
export const createSweeper =
  (options: { db: Db; clock?: () => number; budgetMs?: number; meter?: Meter; payments?: ProviderSource }) =>
  async (): Promise<SweepReport> => {
    const clock = options.clock ?? Date.now;
    const startedMs = clock();
    const deadline = startedMs + (options.budgetMs ?? DEFAULT_SWEEP_BUDGET_MS);
    const now = unixSeconds(startedMs);
    const minutes = sweepMinutes(now, await getSweptUntil(options.db));
    // Read once a run: each release records its client's re-hold cooldown by the tenant's setting of now.
    const config = await getConfig(options.db);
    const cooldown = config ? reholdCooldownOf(config.settings) : undefined;
    let found = 0;
    let released = 0;
    let failed = 0;
    let oldestFound: number | undefined;
    let oldestLeft: number | undefined;
    let firstUnfinished: number | undefined;
    const older = (a: number | undefined, b: number) => (a === undefined ? b : Math.min(a, b));

    for (let start = 0; start < minutes.length && firstUnfinished === undefined; start += SHARDS_AT_ONCE) {
      const batch = minutes.slice(start, start + SHARDS_AT_ONCE);
      if (clock() >= deadline) {
        firstUnfinished = batch[0];
        break;
      }
      const shards = await Promise.all(
        batch.map((minuteStart) => listSessionsExpiringInMinute(options.db, { minuteStart, now })),
      );
      const sessions = shards.flat();
      found += sessions.length;
      for (const session of sessions) oldestFound = older(oldestFound, session.expires_at);
      const left = new Set<ExpiringSession>();
      for (const round of releaseRounds(sessions, RELEASES_AT_ONCE)) {
        if (clock() >= deadline) {
          for (const session of round) left.add(session);
          continue;
        }
        await Promise.all(
          round.map(async (session) => {
            try {
              if (
                await releaseExpiredSession(options.db, {
                  sessionId: sessionIdOf(session),
                  now: startedMs,
                  ...(cooldown ? { cooldown } : {}),
                })
              )
                released += 1;
            } catch (error) {
              failed += 1;
              left.add(session);
              logger.warn('sweep release failed', { session_id: sessionIdOf(session), error });
            }
          }),
        );
      }
      for (const session of left) oldestLeft = older(oldestLeft, session.expires_at);
      if (left.size) {
        const minuteOf = (session: ExpiringSession) => Math.floor(session.expires_at / 60) * 60;
        firstUnfinished = Math.min(...[...left].map(minuteOf));
      }
    }
    // Unpaid customers' bookings past the tenant's limit are voided with what time is left.
    let voidedUnpaid = 0;
    if (clock() < deadline) {
      if (config) voidedUnpaid = await voidUnpaidBookings(options.db, { config, now: startedMs });
    }
    // Bookings awaiting payment past their deadline lapse, their checkouts closed at the provider first.
    let lapsedPayments = 0;
    if (config && clock() < deadline) {
      // A provider whose keys cannot be read now does not keep stock held: the bookings lapse all the same.
      const provider = await options.payments?.().catch(() => undefined);
      // Within the sweep's budget, each call to the provider too: a provider that hangs cannot make the sweep
      // outlast its function; what is left waits for the next sweep.
      lapsedPayments = await lapseUnpaidPayments(options.db, {
        config,
        now: startedMs,
        provider,
        endBy: deadline,
        clock,
      });
    }
    const complete = firstUnfinished === undefined;
    const resumeFrom = firstUnfinished ?? minutes.at(-1) ?? Math.floor(now / 60) * 60;
    await putSweptUntil(options.db, resumeFrom - REREAD_SECONDS, startedMs);
    const ageOf = (expiresAt: number | undefined) =>
      expiresAt === undefined ? 0 : Math.max(0, now - expiresAt);
    const report: SweepReport = {
      minutes: minutes.length,
      found,
      released,
      failed,
      complete,
      oldestFoundSeconds: ageOf(oldestFound),
      lagSeconds: complete ? 0 : ageOf(oldestLeft ?? firstUnfinished),
      voidedUnpaid,
      lapsedPayments,
    };
    if (options.meter) meterSweep(options.meter, report);
    if (found > 0 || !complete || voidedUnpaid > 0 || lapsedPayments > 0) {
      logger.info('sweep', {
        minutes: report.minutes,
        found,
        released,
        failed,
        complete,
        oldest_found_seconds: report.oldestFoundSeconds,
        lag_seconds: report.lagSeconds,
        voided_unpaid: voidedUnpaid,
        lapsed_payments: lapsedPayments,
      });
    }
    return report;
  };
