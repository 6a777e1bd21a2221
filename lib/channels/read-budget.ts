import { performance } from 'node:perf_hooks';
import { createContext, Script } from 'node:vm';
import { FeedParseError } from './feed-error.ts';
import { inTurn, SLICE_MS } from './slice-turns.ts';

/**
 * The work one feed's read may take, parse and expansion together, in CPU time: a walk costs some 15 µs an
 * occurrence on a full core, so 5 s leaves room for many capped walks on a 512 MB Lambda's third of one. It
 * counts what the read itself spends, not the time it waits while other reads and requests take their
 * turns, nor the time a loaded machine gives to other processes.
 */
export const READ_BUDGET_MS = 5_000;

/**
 * The longest one step of a walk may hold the thread (an occurrence, a date). ical.js's recurrence
 * iterator can spin forever inside a single step on a rule no date satisfies (`FREQ=DAILY;INTERVAL=7;
 * BYDAY=TU` from a Monday); node:vm's timeout interrupts synchronous code, so each slice runs under it.
 */
const STEP_CAP_MS = 250;

const overBudget = (limitMs: number) =>
  new FeedParseError(`the feed takes too long to read (over ${limitMs / 1000} s of work)`);
const stepTooLong = (cause: unknown) =>
  new FeedParseError(
    `the feed takes too long to read (a step of over ${STEP_CAP_MS} ms: a rule no date satisfies?)`,
    { cause },
  );

/** CPU time of the process so far, in ms: while a slice runs, the thread runs nothing but the read. */
const processCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Times a walk starts again after a slice cut while the process had the CPU for less than half of it: a
 * loaded machine, not the feed, held that slice (the timeout counts wall-clock time).
 */
const MAX_RESTARTS = 3;

/** A slice cut by its timeout that used under half of it in CPU time. */
class PreemptedError extends Error {}

/** The caller ran out of time before the read was done: nothing is known of the feed, nothing is wrong with it. */
export class ReadAbandonedError extends Error {
  constructor() {
    super('the read was abandoned at the caller’s deadline');
    this.name = 'ReadAbandonedError';
  }
}

// The timeout's error comes from the context's realm: not an instance of this realm's Error.
const isTimeout = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';

const guard = new Script('step()');

/**
 * The budget of one feed's read: a walk runs in slices of about 10 ms under node:vm's timeout (250 ms), one
 * slice of all the process's reads per turn of the event loop, so hostile feeds hold the thread (and every
 * other channel and request of the process) for one slice at a time, never for a read or a round. The budget
 * counts CPU time (`cpuMs`, the process's by default); a slice cut by its wall-clock timeout with little
 * CPU time in it was held by the machine, and its walk starts again. Over the budget, the read fails as an
 * unreadable feed (FeedParseError); past the caller's deadline, if it has one, it is abandoned
 * (ReadAbandonedError).
 */
export class ReadBudget {
  readonly limitMs: number;
  readonly #timeLeftMs: () => number;
  readonly #cpuMs: () => number;
  readonly #context = createContext({ step: (): unknown => undefined });
  #spentMs = 0;
  #longestMs = 0;

  constructor(options: { limitMs?: number; timeLeftMs?: () => number; cpuMs?: () => number } = {}) {
    this.limitMs = options.limitMs ?? READ_BUDGET_MS;
    this.#timeLeftMs = options.timeLeftMs ?? (() => Number.POSITIVE_INFINITY);
    this.#cpuMs = options.cpuMs ?? processCpuMs;
  }

  /** The read's own CPU time so far, in ms. */
  get spentMs(): number {
    return this.#spentMs;
  }

  /** The longest the read has held the thread at once, in ms. */
  get longestMs(): number {
    return this.#longestMs;
  }

  /**
   * Runs a walk to its end in slices, each at its turn among the process's reads; answers what it returns.
   * `start` makes the walk: a slice the machine held (not the feed) starts it again, its work so far
   * counted in the budget.
   */
  async walk<T>(start: () => Iterator<unknown, T>): Promise<T> {
    let work = start();
    for (let restarts = 0; ; ) {
      let next: IteratorResult<unknown, T> | undefined;
      try {
        next = await inTurn(() => {
          // Checked at the read's turn: the wait for it counts against the caller's deadline.
          if (this.#timeLeftMs() <= 0) throw new ReadAbandonedError();
          return this.#guarded(() => {
            const until = performance.now() + SLICE_MS;
            let result = work.next();
            while (!result.done && performance.now() < until) result = work.next();
            return result;
          }, STEP_CAP_MS);
        });
      } catch (error) {
        if (!(error instanceof PreemptedError)) throw error;
        restarts += 1;
        if (restarts > MAX_RESTARTS) throw stepTooLong(error);
        work = start();
      }
      if (next?.done) return next.value;
    }
  }

  #guarded<T>(work: () => T, capMs: number): T {
    const left = this.limitMs - this.#spentMs;
    if (left <= 0) throw overBudget(this.limitMs);
    const started = performance.now();
    const cpuAtStart = this.#cpuMs();
    this.#context.step = work;
    try {
      // The timeout is wall-clock time, never shorter than the CPU time it stands for.
      return guard.runInContext(this.#context, {
        timeout: Math.max(1, Math.ceil(Math.min(capMs, left))),
      }) as T;
    } catch (error) {
      if (!isTimeout(error)) throw error;
      const timeoutMs = Math.min(capMs, left);
      if (this.#cpuMs() - cpuAtStart < timeoutMs / 2) throw new PreemptedError();
      throw capMs < left ? stepTooLong(error) : overBudget(this.limitMs);
    } finally {
      this.#spentMs += this.#cpuMs() - cpuAtStart;
      this.#longestMs = Math.max(this.#longestMs, performance.now() - started);
      this.#context.step = () => undefined;
    }
  }
}
