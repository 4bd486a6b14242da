/**
 * `pnpm --filter @agent-teams/api bundle`: bundles the built CLI into `bundle/agent-teams.js`, the
 * file the installed bin runs (`bundleCli`). Run after `tsc -b tsconfig.build.json` (it bundles
 * `dist/cli.js`); `pnpm build` does both.
 */
import { bundleCli } from './server-bundles.js';

const file = await bundleCli();
process.stdout.write(`bundled ${file}\n`);
