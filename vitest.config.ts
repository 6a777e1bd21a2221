import { defineConfig } from 'vitest/config';

// The global setup runs in this process: keep the AWS SDK's Node 20 notice out of test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/fetch-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: {
      CDK_VALIDATION: 'false',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
