/**
 * Bundles the `agent-teams` CLI into `bundle/agent-teams.js` (with chunks loaded on demand), the
 * file the installed bin runs: one file instead of about a thousand modules, because module
 * loading was most of the start-up time (docs/decisions/0150, docs/benchmarks.md). Run after
 * `tsc -b tsconfig.build.json` (it bundles `dist/cli.js`); `pnpm build` does both.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'bundle');

/** Builds the bundle; returns its main file. */
export async function bundleCli(): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { 'agent-teams': 'dist/cli.js' },
    outdir,
    bundle: true,
    // Dynamic imports (the OpenTelemetry SDK, GraphiQL's 9 MB page) become chunks loaded on use.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Native addons stay packages; pg-native is pg's optional addon, never installed.
    external: ['better-sqlite3', 'pg-native'],
    // CommonJS dependencies call require(): give the ES module bundle one.
    banner: {
      js: "import { createRequire as __agentTeamsRequire } from 'node:module'; const require = __agentTeamsRequire(import.meta.url);",
    },
    // The installed server runs as deployed, as the container image does (`NODE_ENV=production`),
    // whatever the shell says: graphql-js otherwise runs its development checks on every failed
    // type test (a constructor's name read each time: 3.5 % of a `sendRequest`'s instructions,
    // docs/benchmarks.md, twenty-fourth pass). Only graphql-js and GraphQL Armor's entry files
    // read it here (Armor's two builds are the same code); Yoga reads it at run time, and only
    // for `development` and `test`.
    define: { 'process.env.NODE_ENV': '"production"' },
    // Whitespace and syntax only: identifiers stay, so stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return join(outdir, 'agent-teams.js');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = await bundleCli();
  process.stdout.write(`bundled ${file}\n`);
}
