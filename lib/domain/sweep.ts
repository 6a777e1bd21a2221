/** How far back the first sweep reads. */
export const SWEEP_LOOKBACK_MINUTES = 60;
/** How far back any sweep reads at most, after an outage (older holds are for `npm run reconcile`). */
export const SWEEP_MAX_CATCH_UP_MINUTES = 24 * 60;

/**
 * The start (Unix seconds) of every UTC minute a sweep reads, oldest first, ending with the current one:
 * from where the last complete sweep stopped (`sweptUntil`), else the last hour, never more than a day.
 */
export function sweepMinutes(now: number, sweptUntil?: number): number[] {
  const current = Math.floor(now / 60) * 60;
  const earliest = current - SWEEP_MAX_CATCH_UP_MINUTES * 60;
  const from = Math.max(earliest, sweptUntil ?? current - SWEEP_LOOKBACK_MINUTES * 60);
  const minutes: number[] = [];
  for (let minute = Math.floor(from / 60) * 60; minute <= current; minute += 60) minutes.push(minute);
  return minutes;
}
