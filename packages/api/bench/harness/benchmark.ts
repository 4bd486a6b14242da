import type { MachineInfo } from './machine-info.js';

/** How big a run is: `full` for the numbers in docs/benchmarks.md, `tiny` for the smoke test. */
export type BenchScale = 'full' | 'tiny';

/** A table: header cells and rows of cells (already formatted). */
export interface BenchTable {
  readonly title?: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** What a benchmark reports: its tables, the method, and any free-form notes (findings). */
export interface BenchReport {
  readonly tables: readonly BenchTable[];
  /** How it was measured: what is timed, sample counts, warm-up. One bullet per entry. */
  readonly method: readonly string[];
  /** Findings and extra evidence (Markdown paragraphs, e.g. a query plan in a code block). */
  readonly notes?: readonly string[];
  /** Key numbers by name, for tests and the console summary. */
  readonly metrics: Readonly<Record<string, number>>;
}

/** What a benchmark gets from the harness. */
export interface BenchContext {
  readonly scale: BenchScale;
  /** A fresh temporary directory for this benchmark's databases (removed afterwards). */
  readonly dir: string;
  readonly machine: MachineInfo;
  /** Progress lines for the console (not written to the document). */
  log(line: string): void;
}

/** One registered benchmark: a stable name (its section markers) and how to run it. */
export interface Benchmark {
  readonly name: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<BenchReport>;
}
