import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One root config so `pnpm test` runs every package; each package is a vitest project.
export default defineConfig({
  test: {
    // At least two files at a time. Vitest's default (the cores minus one) runs one file at a time
    // on the 2-core machines CI uses, where most files wait on sockets, fsyncs and child processes
    // rather than compute: on one such host, two at a time took the suite from 818–886 s to 640 s
    // (docs/benchmarks.md, thirty-first pass). Browser files still run one at a time
    // (packages/widget/vitest.e2e.config.ts). `VITEST_MAX_WORKERS` or `--maxWorkers` overrides it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
