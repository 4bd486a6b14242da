import type { IntervalHistogram } from 'node:perf_hooks';

/**
 * Milliseconds on the machine's monotonic clock (`CLOCK_MONOTONIC` through `process.hrtime`):
 * the same clock in every process, so a commit time taken by the server and a receive time taken
 * by the clients process subtract directly, with no wall-clock offset or adjustment in between.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Event-loop delay of a process over a measured window, in milliseconds. */
export interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Reads a `monitorEventLoopDelay` histogram (nanoseconds) as milliseconds. */
export function loopDelayOf(histogram: IntervalHistogram): LoopDelay {
  return { p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}
