import { defineConfig } from 'vitest/config';

// One root config so `pnpm test` runs every package; each package is a vitest project.
export default defineConfig({
  test: {
    projects: [
      'packages/core',
      'packages/testkit',
      'packages/api',
      'packages/widget/vitest.config.ts',
      'packages/widget/vitest.e2e.config.ts',
      'tools/vitest.config.ts',
    ],
  },
});
