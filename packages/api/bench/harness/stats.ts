/** Summary statistics of one series of samples (milliseconds unless stated). */
export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/**
 * The nearest-rank percentile of sorted samples (p in 0..100): the smallest sample with at least
 * p% of the samples at or below it, so p99 of 300 samples is the 297th, a real observation.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/** Summarizes samples (any order). */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** Formats a millisecond value with a precision that suits its size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** Formats a rate (per second) with thousands separators. */
export function rate(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}

/** Waits until `check` answers truthy, polling every `everyMs`, or throws at the deadline. */
export async function waitUntil<T>(
  check: () => Promise<T> | T,
  what: string,
  timeoutMs: number,
  everyMs = 5,
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`[agent-teams/bench] timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The cells of a latency row: samples, p50, p90, p99, max and mean. */
export function latencyCells(s: Summary): string[] {
  return [String(s.count), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max), ms(s.mean)];
}

/** Times `work` once, in milliseconds (`performance.now()`). */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}
