import { performance } from 'node:perf_hooks';

// The turns of the process's feed reads on its one thread: reads in progress together (a round's eight,
// sync-nows beside them) run one slice at a time, never several between two turns of the event loop, and a
// slice that held the thread long is followed by as long a rest, so requests and I/O always get the thread
// back within one slice, whatever the number of reads.

/** Work a slice does before it ends, unless its last step takes longer (one step is never cut short). */
export const SLICE_MS = 10;

/** Reads waiting for their next slice, first come first served. */
const waiting: (() => void)[] = [];
/** A grant is scheduled. */
let pending = false;
/** A slice was granted and has not ended. */
let running = false;
/** No slice starts before then (performance.now() ms): the rest after a long one. */
let restUntil = 0;

function grant(): void {
  pending = false;
  const next = waiting.shift();
  if (!next) return;
  running = true;
  next();
}

function schedule(): void {
  if (pending || running || waiting.length === 0) return;
  pending = true;
  const rest = restUntil - performance.now();
  // Scheduled from inside a turn, an immediate runs after that turn's I/O at the earliest.
  if (rest > 0) setTimeout(grant, rest);
  else setImmediate(grant);
}

/**
 * Runs one slice of a read at its turn: after the slices of the reads that asked before it, one a turn of
 * the event loop, and after the rest that a slice over SLICE_MS earns (as long as its overrun). Answers what
 * the slice answers or throws what it throws.
 */
export async function inTurn<T>(slice: () => T): Promise<T> {
  await new Promise<void>((granted) => {
    waiting.push(granted);
    schedule();
  });
  const started = performance.now();
  try {
    return slice();
  } finally {
    const ended = performance.now();
    running = false;
    restUntil = ended + Math.max(0, ended - started - SLICE_MS);
    schedule();
  }
}
