import { defineConfig } from 'vitest/config';
import { sourceConditions } from '../../tools/vitest/source-conditions.js';

export default defineConfig({
  // graphql ships CJS (main) and ESM (module) builds; Pothos and Yoga load the CJS one through
  // Node, so test code must too, or graphql-js rejects "GraphQLScalarType from another realm".
  ...sourceConditions,
  resolve: { ...sourceConditions.resolve, alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files share their worker's modules instead of importing the server anew for each file:
    // on a 2-core host `test/storage` took 105 s instead of 168 s, its imports 5.6 s instead of
    // 37 s (docs/benchmarks.md, forty-seventh pass). What a module keeps per process is reset
    // before each file by the setup file; a test must not depend on another file's leftovers.
    isolate: false,
    setupFiles: ['test/support/per-file-setup.ts'],
  },
});
