import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the benchmarks' files are, whether they run from their TypeScript sources (tests, tsx) or
 * from the bundle `pnpm bench` builds (`scripts/bench-bundle.ts`, `bench-bundle/`): a module's own
 * URL then names a chunk of the bundle, at another depth, so no path here depends on that depth.
 */

/** This module's file: its `.ts` source, or in the bundle the built chunk that holds it. */
const SELF = fileURLToPath(import.meta.url);

/** The folder of this module: in a bundle, where its entries and chunks all are. */
const HERE = dirname(SELF);

/** True in the bundle: this module is part of a built `.js` file, not its `.ts` source. */
export const BUNDLED = !SELF.endsWith('.ts');

/** The folder of `@agent-teams/api`: the nearest one above this module with that manifest. */
export const API_DIR = findApiDir(HERE);

/** The repository's root. */
export const REPO_DIR = join(API_DIR, '..', '..');

function findApiDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@agent-teams/api'
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`[agent-teams/bench] no @agent-teams/api package above ${from}`);
  }
}

/**
 * How to start the benchmark module `file` (a name in `bench/`, e.g. `turn-user-process.ts`) as a
 * child process: its entry in the bundle this process runs (beside this module's chunk) with no
 * loader, else its source through tsx.
 */
export function benchEntry(file: string): { script: string; execArgv: string[] } {
  if (BUNDLED) return { script: join(HERE, file.replace(/\.ts$/, '.js')), execArgv: [] };
  return { script: join(API_DIR, 'bench', file), execArgv: ['--conditions=@agent-teams/source', '--import', 'tsx'] };
}
