import { defineConfig } from 'vitest/config';

// A host's own test configuration: nothing Agent Teams needs beyond the installed packages.
export default defineConfig({ test: { include: ['test/**/*.test.js'], testTimeout: 30_000 } });
