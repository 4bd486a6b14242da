import { defineConfig } from 'vitest/config';

// The repository's own tools (the container checks' linters).
export default defineConfig({ test: { name: 'tools', include: ['**/*.test.ts'] } });
