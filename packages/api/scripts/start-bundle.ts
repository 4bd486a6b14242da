/**
 * Bundles the server from its TypeScript sources into `start-bundle/agent-teams.js`, the file
 * `pnpm start` runs: the code as the installed CLI runs it (`server-bundles.ts`), built in about
 * a second and kept while its inputs are unchanged (`--if-changed`).
 *
 * @remarks Why not tsx, as `pnpm start` did until decision 0262: tsx loads about a thousand
 * modules one by one (2.3–2.4 s to `listening on`, against about 0.25 s for a bundle), and its
 * `keepNames` transform names every function made at run time, which cost the server 10–15 % of
 * its CPU per turn.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { serverBundleOptions } from './server-bundles.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where `pnpm start`'s bundle goes (one folder below `packages/api`: see `serverBundleOptions`). */
export const START_BUNDLE_DIR = join(root, 'start-bundle');

/** The file a build records the digest of its inputs and their list in, in its folder. */
export const START_STAMP_FILE = '.build-inputs';

/**
 * What else changes a bundle besides the files it reads (paths relative to `packages/api`): the
 * dependencies' versions, how esbuild reads TypeScript, and these scripts. A workspace package
 * whose sources it reads adds its `package.json` and `tsconfig.json` (`inputsOf`).
 */
const SETTINGS = [
  '../../pnpm-lock.yaml',
  '../../tsconfig.base.json',
  'scripts/server-bundles.ts',
  'scripts/start-bundle.ts',
];

/**
 * The files whose bytes a bundle depends on: its inputs as esbuild reported them, without the
 * dependencies' files (the lockfile stands for them: pnpm installs exactly what it names), plus
 * {@link SETTINGS} and the manifests of the workspace packages read.
 */
export function inputsOf(read: readonly string[]): string[] {
  const own = read.filter((file) => !file.includes('node_modules/'));
  const packages = new Set(own.map((file) => /^(\.\.\/[^/]+\/)/.exec(file)?.[1] ?? ''));
  const manifests = [...packages].flatMap((dir) => [`${dir}package.json`, `${dir}tsconfig.json`]);
  return [...new Set([...own, ...SETTINGS, ...manifests])].sort();
}

/** The SHA-256 of each file's path (relative to `base`) and bytes; a missing file counts as its absence. */
export function filesDigest(base: string, files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    const path = join(base, file);
    if (!existsSync(path)) {
      hash.update('missing\0');
      continue;
    }
    const bytes = readFileSync(path);
    hash.update(`${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/**
 * True when `outdir` holds a bundle whose recorded inputs (relative to `base`, `packages/api`)
 * still have the bytes it was built from.
 */
export function bundleIsCurrent(outdir: string, base: string = root): boolean {
  let stamp: unknown;
  try {
    stamp = JSON.parse(readFileSync(join(outdir, START_STAMP_FILE), 'utf8'));
  } catch {
    return false;
  }
  if (typeof stamp !== 'object' || stamp === null) return false;
  const { digest, inputs } = stamp as { digest?: unknown; inputs?: unknown };
  if (typeof digest !== 'string' || !Array.isArray(inputs) || !inputs.every((i) => typeof i === 'string')) return false;
  return existsSync(join(outdir, 'agent-teams.js')) && filesDigest(base, inputs as string[]) === digest;
}

/**
 * Builds the bundle of `src/cli.ts` into `outdir` (emptied first: a chunk's name changes with its
 * contents) and records what it was built from. Returns its main file.
 */
export async function buildStartBundle(outdir: string = START_BUNDLE_DIR): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    ...serverBundleOptions({ 'agent-teams': 'src/cli.ts' }, outdir, 'source'),
  });
  const inputs = inputsOf(Object.keys(result.metafile?.inputs ?? {}));
  writeFileSync(join(outdir, START_STAMP_FILE), `${JSON.stringify({ digest: filesDigest(root, inputs), inputs })}\n`);
  return join(outdir, 'agent-teams.js');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--if-changed') && bundleIsCurrent(START_BUNDLE_DIR)) {
    process.stdout.write('server: start-bundle/ is built from these sources already; bundle skipped\n');
  } else {
    const started = performance.now();
    await buildStartBundle();
    process.stdout.write(
      `server: bundled the sources into start-bundle/ in ${Math.round(performance.now() - started)} ms\n`,
    );
  }
}
