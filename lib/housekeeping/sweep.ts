/** How far back the first sweep reads. */
const SWEEP_LOOKBACK_MINUTES = 60;
/** How far back any sweep reads at most, after an outage (older holds are for `npm run reconcile`). */
const SWEEP_MAX_CATCH_UP_MINUTES = 24 * 60;

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

/**
 * Splits sessions to release into rounds of at most `size` that share no counter, oldest first, so the
 * releases of one round never conflict with each other (a shared counter would make them retry).
 */
export function releaseRounds<T extends { expires_at: number; holds: Record<string, number> }>(
  sessions: readonly T[],
  size: number,
): T[][] {
  const pending = [...sessions].sort((a, b) => a.expires_at - b.expires_at);
  const rounds: T[][] = [];
  while (pending.length) {
    const round: T[] = [];
    const taken = new Set<string>();
    for (let index = 0; index < pending.length && round.length < size; ) {
      const session = pending[index] as T;
      const counters = Object.keys(session.holds);
      if (counters.some((id) => taken.has(id))) {
        index += 1;
        continue;
      }
      for (const id of counters) taken.add(id);
      round.push(session);
      pending.splice(index, 1);
    }
    rounds.push(round);
  }
  return rounds;
}
