import solid from 'vite-plugin-solid';
import { defineConfig } from 'vitest/config';

// Component tests: jsdom + @solidjs/testing-library, msw answering GraphQL.
export default defineConfig({
  plugins: [solid()],
  test: {
    name: 'widget',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test-setup.ts'],
  },
});
