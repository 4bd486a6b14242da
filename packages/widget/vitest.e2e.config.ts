import { defineConfig } from 'vitest/config';
import { sourceConditions } from '../../tools/vitest/source-conditions.js';

// Browser tests: Debian's Chromium driven by playwright-core against the real api server.
export default defineConfig({
  ...sourceConditions,
  test: {
    name: 'widget-e2e',
    environment: 'node',
    include: ['e2e/**/*.e2e.test.ts'],
    globalSetup: ['./e2e/global-setup.ts'],
    // One file at a time: each starts a server and Chromium, and the scripted agents' sleeps
    // must not compete for a small machine's cores with another file's.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
