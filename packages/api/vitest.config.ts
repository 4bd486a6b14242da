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
  },
});
