import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

/** `packages/api` (this file's folder's parent), where the bundle scripts build from. */
export const API_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the server's bundles come from: the built JavaScript (`dist/`) or the TypeScript sources. */
export type BundleFrom = 'dist' | 'source';

/**
 * The esbuild options of every bundle of the server: the installed CLI ({@link bundleCli}), the one
 * `pnpm start` runs (`start-bundle.ts`) and the benchmarks' (`bench-bundle.ts`), so the three run
 * the same code the same way and a benchmark measures what a deployment runs.
 *
 * @param entryPoints output name → entry file (relative to `packages/api`).
 * @param outdir where the bundle goes. It must sit one folder below `packages/api`, as `dist/`
 * and `src/` do: modules find files relative to their own (`package-version.ts` reads
 * `../package.json`).
 * @param from `source` resolves the workspace packages to their TypeScript (the
 * `@agent-teams/source` condition, as the tests and tsx do) and compiles it on the way.
 */
export function serverBundleOptions(
  entryPoints: Readonly<Record<string, string>>,
  outdir: string,
  from: BundleFrom,
): BuildOptions {
  return {
    entryPoints: { ...entryPoints },
    outdir,
    bundle: true,
    // Dynamic imports (the OpenTelemetry SDK, GraphiQL's 9 MB page) become chunks loaded on use.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    ...(from === 'source' ? { conditions: ['@agent-teams/source'] } : {}),
    // Native addons stay packages; pg-native is pg's optional addon, never installed.
    external: ['better-sqlite3', 'pg-native'],
    // CommonJS dependencies call require(): give the ES module bundle one.
    banner: {
      js: "import { createRequire as __agentTeamsRequire } from 'node:module'; const require = __agentTeamsRequire(import.meta.url);",
    },
    // The server runs as deployed, as the container image does (`NODE_ENV=production`), whatever
    // the shell says: graphql-js otherwise runs its development checks on every failed type test
    // (a constructor's name read each time: 3.5 % of a `sendRequest`'s instructions,
    // docs/benchmarks.md, twenty-fourth pass). Only graphql-js and GraphQL Armor's entry files
    // read it here (Armor's two builds are the same code); Yoga reads it at run time, and only
    // for `development` and `test`.
    define: { 'process.env.NODE_ENV': '"production"' },
    // Whitespace and syntax only: identifiers stay, so stack traces stay readable. No
    // `keepNames` (tsx's setting): it wraps every function and class made at run time in a call
    // that sets its name, which cost the server 10–15 % of its CPU per turn (decision 0262).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/**
 * Bundles the built CLI (`dist/cli.js`, after `tsc -b tsconfig.build.json`) into
 * `bundle/agent-teams.js` (with chunks loaded on demand), the file the installed bin runs: one
 * file instead of about a thousand modules, because module loading was most of the start-up time
 * (docs/decisions/0150, docs/benchmarks.md). `apiDir`: the folder of `@agent-teams/api`. Returns
 * its main file.
 */
export async function bundleCli(apiDir: string = API_ROOT): Promise<string> {
  const outdir = join(apiDir, 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  await build({ absWorkingDir: apiDir, ...serverBundleOptions({ 'agent-teams': 'dist/cli.js' }, outdir, 'dist') });
  return join(outdir, 'agent-teams.js');
}
