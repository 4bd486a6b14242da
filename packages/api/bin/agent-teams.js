#!/usr/bin/env node
// Installed entry point: runs the built CLI bundle (plain JavaScript, no loader; one file because
// module loading was most of the start-up time, docs/decisions/0150). In the workspace,
// `pnpm agent-teams` runs the TypeScript source instead.
import '../bundle/agent-teams.js';
