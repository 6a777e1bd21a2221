import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.ts';

// The global setup runs in this process: keep the AWS SDK's Node 20 notice out of test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** The files that assert how long GET ping waits while feeds are read (issue 41: within 1 s). */
const TIMED = [
  'test/integration/channel-hostile-feeds.test.ts',
  'test/review/feed-slow-steps-together.test.ts',
  'test/review/feed-stray-quote-stalls.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/support/fetch-check.ts'],
    // Most tests wait on DynamoDB Local, a browser or a child process rather than compute: three files at a
    // time keep two cores busy (vitest's default, cores - 1, is one file at a time on this 2-core machine:
    // 11 min against 6.5 min for the suite, measured while the machine was shared).
    maxWorkers: 3,
    // A fresh clone starts the files known to be slowest first (test/support/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: {
      CDK_VALIDATION: 'false',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure files share their workers' modules: importing the same lib/ modules afresh for each of
          // sixty files cost about 100 s of CPU (test/unit alone: 130 s, now 38 s, on a shared machine).
          // None keeps state between files (no vi.mock; fake timers, spies and environment changes
          // restored in the test that makes them; caches keyed by what they keep), and none needs
          // DynamoDB Local.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', ...TIMED],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'timed',
          include: TIMED,
          globalSetup: ['test/support/global-setup.ts'],
          // Alone, one file at a time, once the others are done: each asserts the bound on GET ping
          // while hostile feeds are read, which three other files sharing two cores broke on a fresh clone.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
