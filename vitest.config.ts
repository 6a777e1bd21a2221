import { defineConfig } from 'vitest/config';
import { ISOLATED, TIMED } from './test/support/projects.ts';
import SlowestFirst from './test/support/sequencer.ts';

// The global setup runs in this process: keep the AWS SDK's Node 20 notice out of test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * Every DynamoDB Local the tests start (the run's own, and those of the local runners they start) compiles
 * with the JVM's first compiler only: its runs are short, and the second compiler's work never pays back in
 * them (3,000 calls: 11 s of CPU against 20; 20,000: 39 against 52; docs/testing.md). `npm start`, the
 * benchmark and the soak keep Java's defaults.
 */
const JVM_FOR_TESTS = '-XX:TieredStopAtLevel=1';
process.env.JAVA_TOOL_OPTIONS = [process.env.JAVA_TOOL_OPTIONS, JVM_FOR_TESTS].filter(Boolean).join(' ');

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
      JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS,
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
          exclude: ['test/unit/**', ...TIMED, ...ISOLATED],
          globalSetup: ['test/support/global-setup.ts'],
          // As the unit files: each file's own table, tenant, handlers and clock (test/support), so a worker's
          // modules can serve the next file; importing lib/, the AWS SDK and the CDK afresh for each of some
          // 170 files cost about 250 s of the suite's summed time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
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
