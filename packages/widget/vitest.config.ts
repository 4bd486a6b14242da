import { fileURLToPath } from 'node:url';
import solid from 'vite-plugin-solid';
import { defineConfig } from 'vitest/config';
import { sourceConditions } from '../../tools/vitest/source-conditions.js';

// Component tests: jsdom + @solidjs/testing-library, msw answering GraphQL; graphql.web is
// aliased to the widget's stand-in as in the build (vite.config.ts), so urql runs as shipped.
export default defineConfig({
  plugins: [solid()],
  ...sourceConditions,
  resolve: {
    ...sourceConditions.resolve,
    alias: { '@0no-co/graphql.web': fileURLToPath(new URL('src/graphql-web-shim.ts', import.meta.url)) },
  },
  test: {
    name: 'widget',
    environment: 'jsdom',
    // The build scripts' own tests run in Node (`// @vitest-environment node`).
    include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
    setupFiles: ['./src/test-setup.ts'],
    // Inlined so Vite resolves its imports, and the graphql.web alias applies inside it.
    server: { deps: { inline: ['@urql/core'] } },
  },
});
