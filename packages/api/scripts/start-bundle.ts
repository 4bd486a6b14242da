/**
 * Bundles the server from its TypeScript sources into `start-bundle/agent-teams.js`, the file
 * `pnpm start` runs: the code as the installed CLI runs it (`server-bundles.ts`), built in 0.8–3.5 s
 * and kept while its inputs are unchanged (`--if-changed`, about 0.26 s to tell).
 *
 * @remarks Why not tsx, as `pnpm start` did until decision 0262: tsx loads about a thousand
 * modules one by one (2.3–2.4 s to `listening on`, against 0.34–0.40 s for the bundle), and its
 * `keepNames` transform names every function made at run time, which cost the server 10–15 % of
 * its CPU per turn.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { API_ROOT as root, serverBundleOptions } from './server-bundles.js';

/** Where `pnpm start`'s bundle goes (one folder below `packages/api`: see `serverBundleOptions`). */
export const START_BUNDLE_DIR = join(root, 'start-bundle');

/** The file a build records the digest of its inputs and their list in, in its folder. */
export const START_STAMP_FILE = '.build-inputs';

/**
 * What else changes a bundle besides the files it reads (paths relative to `packages/api`): the
 * dependencies' versions, how esbuild reads TypeScript, and these scripts. A workspace package
 * whose sources it reads adds its `package.json` and `tsconfig.json` (`inputsOf`). The
 * dependencies are named twice: by the lockfile, what should be installed, and by pnpm's record
 * of what is (`node_modules/.pnpm/lock.yaml`), so a start between a pull that changed the lockfile
 * and the `pnpm install` after it is not kept once the install changed the packages.
 */
const SETTINGS = [
  '../../pnpm-lock.yaml',
  '../../node_modules/.pnpm/lock.yaml',
  '../../tsconfig.base.json',
  'scripts/server-bundles.ts',
  'scripts/start-bundle.ts',
];

/**
 * The files whose bytes a bundle depends on: its inputs as esbuild reported them, without the
 * dependencies' files (the lockfiles stand for them: pnpm installs exactly what they name), plus
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
  const record = readRecord(outdir);
  return (
    record !== null && existsSync(join(outdir, 'agent-teams.js')) && filesDigest(base, record.inputs) === record.digest
  );
}

/** What a build recorded in `outdir` ({@link START_STAMP_FILE}), or null when there is no readable record. */
function readRecord(outdir: string): { digest: string; inputs: string[]; outputs: string[] } | null {
  let stamp: unknown;
  try {
    stamp = JSON.parse(readFileSync(join(outdir, START_STAMP_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (typeof stamp !== 'object' || stamp === null) return null;
  const { digest, inputs, outputs = [] } = stamp as { digest?: unknown; inputs?: unknown; outputs?: unknown };
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (typeof digest !== 'string' || !strings(inputs) || !strings(outputs)) return null;
  return { digest, inputs, outputs };
}

/** Removes every file of `outdir` but `keep` (the last two builds' files). */
export function pruneOlderBuilds(outdir: string, keep: readonly string[]): void {
  const kept = new Set(keep);
  for (const file of readdirSync(outdir)) if (!kept.has(file)) rmSync(join(outdir, file), { force: true });
}

/** True when a file of `files` (relative to `base`) was modified at or after `since` (ms since the epoch). */
export function changedSince(base: string, files: readonly string[], since: number): boolean {
  return files.some((file) => {
    const path = join(base, file);
    return existsSync(path) && statSync(path).mtimeMs >= since;
  });
}

/**
 * Builds the bundle of `src/cli.ts` into `outdir` and records what it was built from. Returns its
 * main file, and whether the record was written: not when an input changed while the build read
 * it (its mtime is after the build began), so the next start builds again.
 *
 * @remarks The folder is not emptied: a server still running from the previous build loads its
 * chunks on first use (GraphiQL's page, the MCP SDK), and a chunk's name changes with its contents.
 * The new build's files and the previous build's are kept; older ones are removed.
 */
export async function buildStartBundle(
  outdir: string = START_BUNDLE_DIR,
): Promise<{ main: string; recorded: boolean }> {
  const keep = readRecord(outdir)?.outputs ?? [];
  // A build that fails or stops halfway leaves no record, so the next start builds again.
  rmSync(join(outdir, START_STAMP_FILE), { force: true });
  const began = Date.now();
  const options = serverBundleOptions({ 'agent-teams': 'src/cli.ts' }, outdir, 'source');
  // Source maps beside the chunks (not in them): `NODE_OPTIONS=--enable-source-maps pnpm start`
  // then prints stack traces in the sources' terms, as tsx did, at no cost otherwise.
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    ...options,
    sourcemap: 'linked',
    sourcesContent: false,
  });
  const outputs = Object.keys(result.metafile?.outputs ?? {}).map((file) => relative(outdir, join(root, file)));
  pruneOlderBuilds(outdir, [...keep, ...outputs]);
  const inputs = inputsOf(Object.keys(result.metafile?.inputs ?? {}));
  const changed = changedSince(root, inputs, began);
  if (!changed) {
    const record = { digest: filesDigest(root, inputs), inputs, outputs };
    writeFileSync(join(outdir, START_STAMP_FILE), `${JSON.stringify(record)}\n`);
  }
  return { main: join(outdir, 'agent-teams.js'), recorded: !changed };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--if-changed') && bundleIsCurrent(START_BUNDLE_DIR)) {
    process.stdout.write('server: start-bundle/ is built from these sources already; bundle skipped\n');
  } else {
    const started = performance.now();
    const { recorded } = await buildStartBundle();
    const took = Math.round(performance.now() - started);
    process.stdout.write(
      recorded
        ? `server: bundled the sources into start-bundle/ in ${took} ms\n`
        : `server: bundled the sources into start-bundle/ in ${took} ms; a source changed meanwhile, so the next start bundles again\n`,
    );
  }
}
