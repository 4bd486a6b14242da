#!/usr/bin/env node
// Installed entry point: runs the built CLI (plain JavaScript, no loader). In the workspace,
// `pnpm agent-teams` runs the TypeScript source instead (README, "Development").
import '../dist/cli.js';
