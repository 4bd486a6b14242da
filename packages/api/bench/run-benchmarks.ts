import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_DIR } from './harness/bench-paths.js';
import type { BenchScale } from './harness/benchmark.js';
import { runBenchmarks } from './harness/run-all.js';
import { BENCHMARKS } from './registry.js';

/** docs/benchmarks.md at the repository root. */
const DEFAULT_DOC = join(REPO_DIR, 'docs', 'benchmarks.md');

const USAGE = `usage: pnpm bench [-- --only NAME[,NAME]] [--scale full|tiny] [--out FILE] [--no-write]
benchmarks: ${BENCHMARKS.map((benchmark) => benchmark.name).join(', ')}`;

/** Parses the command line (`--` separators from pnpm are ignored). */
export function parseBenchArgs(argv: readonly string[]): {
  only: string[];
  scale: BenchScale;
  docPath: string | null;
} {
  const only: string[] = [];
  let scale: BenchScale = 'full';
  let docPath: string | null = DEFAULT_DOC;
  const args = argv.filter((arg) => arg !== '--');
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const [flag, inline] = arg.includes('=') ? (arg.split(/=(.*)/s, 2) as [string, string]) : [arg, undefined];
    const value = () => {
      const next = inline ?? args[++i];
      if (next === undefined) throw new Error(`[agent-teams/bench] ${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--only') only.push(...value().split(',').filter(Boolean));
    else if (flag === '--scale') {
      const v = value();
      if (v !== 'full' && v !== 'tiny') throw new Error(`[agent-teams/bench] --scale is full or tiny\n${USAGE}`);
      scale = v;
    } else if (flag === '--out') docPath = resolve(process.env.INIT_CWD ?? process.cwd(), value());
    else if (flag === '--no-write') docPath = null;
    else throw new Error(`[agent-teams/bench] unknown argument ${arg}\n${USAGE}`);
  }
  return { only, scale, docPath };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const started = performance.now();
  await runBenchmarks({ benchmarks: BENCHMARKS, ...args });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\nbench finished in ${seconds} s${args.docPath ? `; wrote ${args.docPath}` : ''}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
