import { defineConfig } from 'vitest/config';
import { sourceConditions } from '../../tools/vitest/source-conditions.js';

// Property tests (fast-check) run hundreds of cases; on a loaded 2-core CI machine the default
// 5 s per test is too tight, so allow 30 s (they take 1–2 s when the machine is quiet).
export default defineConfig({
  ...sourceConditions,
  // The test server loads the api, whose Pothos and Yoga use graphql's CJS build: test code must
  // too (see packages/api/vitest.config.ts).
  resolve: { ...sourceConditions.resolve, alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30_000 },
});
