import { describe, expect, it } from 'vitest';
import { hasSettled, warmUntilSettled } from '#test/bench/floor.ts';

// The benchmark warms DynamoDB Local (a JVM) until its floors' rates stop climbing before it measures
// anything, so the first scenarios are not charged for its JIT (issue 16, point 2: the ratio).

describe('warming DynamoDB Local up', () => {
  it('is settled only when a round of floor rates is within 7 % of the round before it', () => {
    expect(hasSettled([], [100, 200])).toBe(false);
    expect(hasSettled([100, 200], [100])).toBe(false);
    // Still climbing: the cold JVM doubles its rate from one round to the next.
    expect(hasSettled([130, 118], [331, 286])).toBe(false);
    expect(hasSettled([1000, 500], [1100, 560])).toBe(false);
    // Warm: one floor a little up, the other a little down.
    expect(hasSettled([1036, 696], [1100, 660])).toBe(true);
    expect(hasSettled([1000, 500], [1060, 530])).toBe(true);
    // A stalled floor is no reason to stop.
    expect(hasSettled([1000, 500], [0, 500])).toBe(false);
  });

  // The rounds run on a clock of their own: each call of `work` moves it on by the call's duration, so the
  // rates are exact and the test neither waits nor depends on how busy the machine is.
  const virtualClock = () => {
    let now = 0;
    const spend = async (ms: number) => {
      now += ms;
    };
    return { clock: () => now, spend };
  };

  it('runs rounds until the rates settle, and stops at its time limit when they never do', async () => {
    const warming = virtualClock();
    let calls = 0;
    // Each call 4 ms quicker than the one before for the first 30 calls (a round at least 10 % faster than
    // the one before it), then steady.
    const work = () => {
      calls += 1;
      return warming.spend(Math.max(1, 120 - 4 * calls));
    };
    const warmed = await warmUntilSettled([work], {
      concurrency: 1,
      roundSeconds: 0.2,
      maxSeconds: 8,
      clock: warming.clock,
    });
    expect(warmed.settled).toBe(true);
    expect(calls).toBeGreaterThan(30);

    // Twice as slow every tenth of a second: the rate halves from one round to the next.
    const slowing = virtualClock();
    const neverSettles = () => slowing.spend(2 ** Math.floor(slowing.clock() / 100));
    const limited = await warmUntilSettled([neverSettles], {
      concurrency: 1,
      roundSeconds: 0.1,
      maxSeconds: 0.5,
      clock: slowing.clock,
    });
    expect(limited.settled).toBe(false);
    expect(limited.seconds).toBeGreaterThanOrEqual(0.5);
  });

  it('makes each round last at least minRoundSeconds, however few the floors', async () => {
    // A steady floor settles on the second round: both rounds last the minimum, not one short floor each.
    const one = virtualClock();
    const warmed = await warmUntilSettled([() => one.spend(5)], {
      concurrency: 1,
      roundSeconds: 0.05,
      minRoundSeconds: 0.4,
      maxSeconds: 5,
      clock: one.clock,
    });
    expect(warmed).toEqual({ settled: true, seconds: 0.8 });
    // Two floors share the minimum: each runs 0.2 s a round.
    const two = virtualClock();
    const both = await warmUntilSettled([() => two.spend(5), () => two.spend(5)], {
      concurrency: 1,
      roundSeconds: 0.05,
      minRoundSeconds: 0.4,
      maxSeconds: 5,
      clock: two.clock,
    });
    expect(both).toEqual({ settled: true, seconds: 0.8 });
  });
});
