import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { FeedParseError } from '#lib/channels/feed-error.ts';
import { ReadAbandonedError, ReadBudget } from '#lib/channels/read-budget.ts';

// The budget a feed's read runs under (issue 41, item 1): slices that leave the thread to others, a step
// cut when it holds the thread too long, CPU time counted, and the caller's deadline.

/** Holds the thread for `ms` of wall-clock time. */
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** A walk of `steps` steps of `ms` each, answering `value`. */
function* steps(count: number, ms: number, value = 'done'): Generator<void, string> {
  for (let step = 0; step < count; step += 1) {
    busy(ms);
    yield;
  }
  return value;
}

describe('ReadBudget', () => {
  it('lets other work run between the slices of a walk', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other'));
    const walked = new ReadBudget().walk(() => steps(100, 1)).then((value) => order.push(value));
    await walked;
    expect(order).toEqual(['other', 'done']);
  });

  it('runs one slice of all the reads in progress per turn of the event loop', async () => {
    // A timer due at every turn counts the turns; each step (a slice of its own, being over 10 ms) notes
    // the turn it ran in. Reads taking their turns together would run several slices in one turn.
    let turn = 0;
    const turns = setInterval(() => {
      turn += 1;
    }, 1);
    const slicesIn: number[] = [];
    function* noted(count: number): Generator<void, string> {
      for (let step = 0; step < count; step += 1) {
        slicesIn.push(turn);
        busy(15);
        yield;
      }
      return 'done';
    }
    try {
      await Promise.all(Array.from({ length: 4 }, () => new ReadBudget().walk(() => noted(5))));
    } finally {
      clearInterval(turns);
    }
    expect(slicesIn).toHaveLength(20);
    expect(new Set(slicesIn).size).toBe(20);
  });

  it('cuts a step that holds the thread over 250 ms, and says why', async () => {
    const refusal = await new ReadBudget().walk(() => steps(1, 2_000)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(FeedParseError);
    expect((refusal as FeedParseError).reason).toMatch(/a step of over 250 ms/);
  });

  it('starts a walk again when the machine held the slice (little CPU time in it), not the walk', async () => {
    let started = 0;
    const value = await new ReadBudget({ cpuMs: () => 0 }).walk(() => {
      started += 1;
      // The first walk's step outlasts the cap while (by its CPU clock) the process had no CPU.
      return started === 1 ? steps(1, 2_000) : steps(3, 1, 'again');
    });
    expect({ value, started }).toEqual({ value: 'again', started: 2 });
  });

  it('counts CPU time, and fails the read as unreadable past its limit', async () => {
    let cpu = 0;
    // Each reading of the CPU clock 15 ms later: every slice (read before and after) costs 15 ms.
    const budget = new ReadBudget({ limitMs: 100, cpuMs: () => (cpu += 15) });
    const refusal = await budget.walk(() => steps(1_000, 1)).catch((error: unknown) => error);
    expect((refusal as FeedParseError).reason).toBe('the feed takes too long to read (over 0.1 s of work)');
    expect(budget.spentMs).toBeGreaterThanOrEqual(100);
  });

  it('abandons the walk at the caller’s deadline, as no fault of the feed', async () => {
    let left = 30;
    const budget = new ReadBudget({ timeLeftMs: () => (left -= 10) });
    await expect(budget.walk(() => steps(1_000, 1))).rejects.toBeInstanceOf(ReadAbandonedError);
  });
});
