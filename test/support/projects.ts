// Which files run apart from the rest (vitest.config.ts): the service project shares a worker's modules
// between its files, these do not.

/** The files that assert how long GET ping waits while feeds are read (issue 41: within 1 s). */
export const TIMED = [
  'test/integration/channel-hostile-feeds.test.ts',
  'test/review/feed-slow-steps-together.test.ts',
  'test/review/feed-stray-quote-stalls.test.ts',
];

/**
 * The files that replace modules for the whole file (vi.mock), or change what every module sees (the
 * environment, the clock's Date): each runs with modules of its own. test/unit/test-projects.test.ts finds
 * any other.
 */
export const ISOLATED = [
  'test/integration/rated-wire-counters.test.ts',
  'test/integration/rated-wire-clock.test.ts',
  'test/integration/rated-wire-callers.test.ts',
  'test/integration/idempotency.test.ts',
  'test/integration/bookings-create.test.ts',
  'test/infra/fleet-aws.test.ts',
];

/** What puts a file in ISOLATED: a module replaced, the environment stubbed, or Date faked. */
export const NEEDS_ISOLATION =
  /\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\(|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/;
