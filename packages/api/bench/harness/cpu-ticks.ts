import { readFileSync } from 'node:fs';

/** The machine's CPU time so far, in clock ticks summed over every core (Linux `/proc/stat`). */
export interface CpuTicks {
  /** user + nice + system + irq + softirq. */
  readonly busy: number;
  /** Time the hypervisor ran something else while this VM wanted to run. */
  readonly steal: number;
  readonly total: number;
}

/** Reads the first `cpu` line of `/proc/stat`; null where there is none (not Linux). */
export function readCpuTicks(): CpuTicks | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return {
      busy: user + nice + system + irq + softirq,
      steal,
      total: user + nice + system + idle + iowait + irq + softirq + steal,
    };
  } catch {
    return null;
  }
}

/**
 * Busy and stolen cores between two readings (e.g. 1.6 of 2): what every process of the machine
 * used, so a benchmark can tell its own load from other work on a shared machine.
 */
export function coresBetween(
  before: CpuTicks | null,
  after: CpuTicks | null,
  cores: number,
): { busy: number; steal: number } {
  if (before === null || after === null || after.total <= before.total) return { busy: Number.NaN, steal: Number.NaN };
  const total = after.total - before.total;
  return { busy: ((after.busy - before.busy) / total) * cores, steal: ((after.steal - before.steal) / total) * cores };
}
