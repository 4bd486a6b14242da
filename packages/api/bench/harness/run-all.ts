import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchReport, BenchScale } from './benchmark.js';
import { type MachineInfo, machineLine, readMachineInfo } from './machine-info.js';
import {
  handWrittenInSections,
  handWrittenMessage,
  renderConsoleTable,
  renderTable,
  replaceSection,
} from './markdown.js';

/** Options of {@link runBenchmarks}. */
export interface RunOptions {
  readonly benchmarks: readonly Benchmark[];
  /** Run only these (by name); the document keeps every other section as it is. */
  readonly only?: readonly string[];
  readonly scale?: BenchScale;
  /** The document to rewrite (created when missing); null writes nothing. */
  readonly docPath: string | null;
  /** Where console output goes (default: stdout). */
  readonly print?: (text: string) => void;
  /** Directory for the temporary databases (default: the OS temp dir). */
  readonly tempRoot?: string;
}

/** The reports of one run, by benchmark name. */
export interface RunResult {
  readonly machine: MachineInfo;
  readonly reports: ReadonlyMap<string, BenchReport>;
  readonly document: string | null;
}

const TITLE = '# Benchmarks';

/**
 * Runs the selected benchmarks one after the other, prints each table, and rewrites the
 * document: the header on a full run (or when it is missing) and each benchmark's own section.
 *
 * @throws when `only` names an unknown benchmark, or when a benchmark fails (nothing is written
 * for the failed one; sections written before it stay).
 */
export async function runBenchmarks(opts: RunOptions): Promise<RunResult> {
  const print = opts.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const known = new Set(opts.benchmarks.map((benchmark) => benchmark.name));
  const unknown = (opts.only ?? []).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`[agent-teams/bench] unknown benchmark ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  }
  const selected =
    opts.only && opts.only.length > 0
      ? opts.benchmarks.filter((benchmark) => opts.only?.includes(benchmark.name))
      : opts.benchmarks;
  const scale = opts.scale ?? 'full';
  const machine = await readMachineInfo();
  print(`machine: ${machineLine(machine)}; PostgreSQL ${machine.postgres}; scale ${scale}`);
  let document = opts.docPath === null ? null : readDocument(opts.docPath);
  // Checked before any benchmark runs: a full run takes minutes, and its rewrite would drop them.
  const misplaced = document === null ? [] : handWrittenInSections(document);
  if (misplaced.length > 0) throw new Error(handWrittenMessage(misplaced));
  const full = selected.length === opts.benchmarks.length;
  if (document !== null && (full || !document.includes('<!-- bench:header:start -->'))) {
    document = writeHeader(document, machine, opts.benchmarks, scale);
  }
  const reports = new Map<string, BenchReport>();
  for (const benchmark of selected) {
    const dir = mkdtempSync(join(opts.tempRoot ?? tmpdir(), `agent-teams-bench-${benchmark.name}-`));
    const started = performance.now();
    print(`\n== ${benchmark.name}: ${benchmark.title}`);
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const report = await benchmark.run({ scale, dir, machine, log: (line) => print(`   ${line}`) });
      const seconds = (performance.now() - started) / 1000;
      const load = { before: loadBefore, after: loadavg()[0] ?? 0, seconds };
      reports.set(benchmark.name, report);
      for (const table of report.tables) print(`\n${renderConsoleTable(table)}`);
      print(`(${benchmark.name} took ${seconds.toFixed(1)} s; 1-minute load average ${loadText(load)})`);
      if (document !== null && opts.docPath !== null) {
        document = replaceSection(document, benchmark.name, renderSection(benchmark, report, machine, scale, load));
        writeFileSync(opts.docPath, document);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (document !== null && opts.docPath !== null) writeFileSync(opts.docPath, document);
  return { machine, reports, document };
}

function readDocument(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return `${TITLE}\n`;
  }
}

function writeHeader(document: string, m: MachineInfo, all: readonly Benchmark[], scale: BenchScale): string {
  const body = [
    'Written by `pnpm bench` (`packages/api/bench/run-benchmarks.ts`); do not edit between the markers.',
    '`pnpm bench -- --only NAME` reruns one benchmark and rewrites only its section (each section',
    'names its own date and commit). Benchmarks report; they never fail CI.',
    '',
    '| Machine | |',
    '| --- | --- |',
    `| CPU | ${m.cpuCount} × ${m.cpuModel} |`,
    `| RAM | ${m.ramGiB} GiB |`,
    `| OS | ${m.os} |`,
    `| Node | ${m.node}, \`NODE_ENV\` ${m.nodeEnv} |`,
    `| Code | ${m.code === 'bundled' ? 'bundled as the installed CLI is (esbuild, `packages/api/scripts/bench-bundle.ts`)' : 'the TypeScript sources through tsx'} |`,
    `| SQLite | ${m.sqlite} (better-sqlite3) |`,
    `| PostgreSQL server | ${m.postgres} |`,
    `| Last full run | ${m.date}, commit ${m.commit}, scale ${scale} |`,
    '',
    'Method, common to all sections: the application as `serve` builds it (`createApp`, the one',
    'composition root: `openDatabase` on a temporary SQLite **file** with the production pragmas:',
    'WAL, `synchronous=FULL`, every write transaction `BEGIN IMMEDIATE`; the SQL store, the core,',
    'the `scripted` runtime and the scheduler, system clock, random ids), not listening unless a',
    'section says so, in one Node process, running the code as a deployment runs it: bundled with',
    "the installed CLI's esbuild options (decision 0262; the sources through tsx spent 10–15 % more",
    'CPU per turn).',
    'Times are wall-clock `performance.now()`; percentiles are nearest-rank over the samples.',
    'The machine may be shared with other work: each section states the 1-minute load average',
    'before and after it, and the numbers move with it (on the development VM the raw SQLite',
    'commit rate alone was seen anywhere between ~250 and ~3,200 commits/s), so compare runs made',
    'under similar load.',
    '',
    `Sections: ${all.map((benchmark) => `\`${benchmark.name}\``).join(', ')}.`,
  ].join('\n');
  const titled = document.startsWith(TITLE) ? document : `${TITLE}\n\n${document}`;
  return replaceSection(titled, 'header', body);
}

interface LoadNote {
  readonly before: number;
  readonly after: number;
  readonly seconds: number;
}

function loadText(load: LoadNote): string {
  return `${load.before.toFixed(1)} → ${load.after.toFixed(1)}`;
}

function renderSection(
  benchmark: Benchmark,
  report: BenchReport,
  m: MachineInfo,
  scale: BenchScale,
  load: LoadNote,
): string {
  return [
    `## ${benchmark.title}`,
    '',
    `_Measured ${m.date}, commit ${m.commit}, scale ${scale}, in ${load.seconds.toFixed(0)} s; 1-minute load average ${loadText(load)} (other processes share the ${m.cpuCount} cores); ${machineLine(m)}._`,
    '',
    ...report.tables.flatMap((table) => [renderTable(table), '']),
    'Method:',
    '',
    ...report.method.map((line) => `- ${line}`),
    ...(report.notes && report.notes.length > 0 ? ['', ...report.notes.flatMap((note) => [note, ''])] : []),
  ]
    .join('\n')
    .trim();
}
