import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { type LoopDelay, loopDelayOf } from '../live-clock.js';

/** Garbage-collection pauses while measuring: a long one stalls every delivery at once. */
export interface GcPauses {
  count: number;
  totalMs: number;
  maxMs: number;
}

/** What a relay process used between {@link RelayWindow.open} and {@link RelayWindow.close}. */
export interface RelayCost {
  readonly cpuMicros: number;
  readonly loopDelay: LoopDelay;
  readonly gc: GcPauses;
}

/**
 * The measuring window of a token-relay server process (the application's or the floor's): its
 * CPU (`process.cpuUsage`, user + system), event-loop delay (1 ms resolution) and GC pauses.
 */
export class RelayWindow {
  readonly #loopDelay = monitorEventLoopDelay({ resolution: 1 });
  readonly #gc: GcPauses = { count: 0, totalMs: 0, maxMs: 0 };
  readonly #gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.#gc.count += 1;
      this.#gc.totalMs += entry.duration;
      this.#gc.maxMs = Math.max(this.#gc.maxMs, entry.duration);
    }
  });
  #cpu: NodeJS.CpuUsage | null = null;

  /** Starts measuring from zero. */
  open(): void {
    Object.assign(this.#gc, { count: 0, totalMs: 0, maxMs: 0 });
    this.#gcObserver.observe({ entryTypes: ['gc'] });
    this.#loopDelay.reset();
    this.#loopDelay.enable();
    this.#cpu = process.cpuUsage();
  }

  /** Stops measuring; what was used since {@link open}. */
  close(): RelayCost {
    const used = process.cpuUsage(this.#cpu ?? undefined);
    this.#loopDelay.disable();
    this.#gcObserver.disconnect();
    return { cpuMicros: used.user + used.system, loopDelay: loopDelayOf(this.#loopDelay), gc: { ...this.#gc } };
  }
}
