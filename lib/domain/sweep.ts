/** How far back the sweeper looks each run: a missed run (or an outage shorter than this) is caught up. */
export const SWEEP_LOOKBACK_MINUTES = 60;

/** The start (Unix seconds) of every UTC minute the sweeper reads, oldest first, ending with `now`'s. */
export function sweepMinutes(now: number, lookbackMinutes = SWEEP_LOOKBACK_MINUTES): number[] {
  const current = Math.floor(now / 60) * 60;
  return Array.from({ length: lookbackMinutes + 1 }, (_, index) => current - (lookbackMinutes - index) * 60);
}
