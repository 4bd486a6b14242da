/**
 * Bundles the benchmarks into `bench-bundle/` (`pnpm bench` runs `bench-bundle/run-benchmarks.js`):
 * the benchmark and every child process it starts that runs server code, built from the sources
 * with the installed CLI's options (`server-bundles.ts`), so the figures are those of the code a
 * deployment runs (decision 0262). Source maps go beside the chunks, for the CPU profiles'
 * attribution to modules (`bench/harness/profile-sources.ts`).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { API_ROOT as root, serverBundleOptions } from './server-bundles.js';

/** The bundle's folder. */
export const BENCH_BUNDLE_DIR = join(root, 'bench-bundle');

/** The entry points: the runner and every `bench/*-process.ts` a benchmark forks (`benchEntry`). */
export function benchEntries(): Record<string, string> {
  const children = readdirSync(join(root, 'bench')).filter((file) => file.endsWith('-process.ts'));
  const entries: Record<string, string> = { 'run-benchmarks': 'bench/run-benchmarks.ts' };
  for (const file of children) entries[file.replace(/\.ts$/, '')] = `bench/${file}`;
  return entries;
}

/**
 * Builds the bundle into `outdir` (emptied first: a chunk's name changes with its contents), one
 * folder below `packages/api` (see `serverBundleOptions`); returns the runner's file.
 */
export async function bundleBenchmarks(outdir: string = BENCH_BUNDLE_DIR): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const options = serverBundleOptions(benchEntries(), outdir, 'source');
  await build({
    absWorkingDir: root,
    ...options,
    sourcemap: 'linked',
    sourcesContent: false,
    // esbuild finds its native binary next to its own package: `cold-start` builds the CLI bundle.
    external: [...(options.external ?? []), 'esbuild'],
  });
  return join(outdir, 'run-benchmarks.js');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  await bundleBenchmarks();
  process.stdout.write(`bench: bundled into bench-bundle/ in ${Math.round(performance.now() - started)} ms\n`);
}
