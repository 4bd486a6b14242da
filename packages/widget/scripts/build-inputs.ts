import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What a build of the widget is made from, relative to the package: its sources, the build's
 * configuration and script, its manifest, its TypeScript settings, and the workspace lockfile
 * (every dependency's version). A change to any of them changes {@link buildInputsDigest}.
 */
export const BUILD_INPUTS = [
  'src',
  'vite.config.ts',
  'scripts/build.ts',
  'package.json',
  // Vite's TypeScript transform reads them (class fields, module syntax, target).
  'tsconfig.json',
  '../../tsconfig.base.json',
  '../../pnpm-lock.yaml',
];

/** The files a build writes and a skipped build must still find. */
export const BUILD_OUTPUTS = ['widget.js', 'widget.iife.js'];

/** Where a build records the digest of its inputs, in `dist/`. */
export const STAMP_FILE = '.build-inputs';

/** Every file under `path` (itself when a file), sorted, so the digest does not depend on the directory order. */
function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The SHA-256 of every input file's path (relative to `root`) and bytes. A missing input counts
 * as its absence, so removing a file changes the digest too.
 */
export function buildInputsDigest(root: string, inputs: readonly string[] = BUILD_INPUTS): string {
  const hash = createHash('sha256');
  for (const input of inputs) {
    const files = filesOf(join(root, input));
    hash.update(`${input}\0${files.length}\0`);
    for (const file of files) {
      hash.update(`${relative(root, file)}\0`);
      const bytes = readFileSync(file);
      hash.update(`${bytes.length}\0`);
      hash.update(bytes);
    }
  }
  return hash.digest('hex');
}

/**
 * True when `dist` holds every file of a build whose recorded inputs digest is `digest` (the two
 * entry scripts, and every chunk that build wrote): a build now would write the same files
 * (`--if-changed` then skips it).
 */
export function builtFrom(dist: string, digest: string): boolean {
  let stamp: string[];
  try {
    stamp = readFileSync(join(dist, STAMP_FILE), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } catch {
    return false;
  }
  const [recorded, ...files] = stamp;
  return recorded === digest && [...BUILD_OUTPUTS, ...files].every((file) => existsSync(join(dist, file)));
}

/** Records that `dist` was built from inputs with this digest, and the files it wrote (after a successful build). */
export function recordBuild(dist: string, digest: string, files: readonly string[]): void {
  writeFileSync(join(dist, STAMP_FILE), `${[digest, ...files].join('\n')}\n`);
}
