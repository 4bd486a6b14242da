import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, ms) of each PostgreSQL backend serving one database, by pid. */
export type BackendCpu = ReadonlyMap<number, number>;

/** user + system CPU of a local process in ms, or null when it is gone or not readable. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * Reads the CPU time of every backend connected to `database` (from `pg_stat_activity`, through
 * `client`, which should be connected to another database so it is not counted itself).
 *
 * @remarks Only for a server on this machine: it reads `/proc/<pid>/stat` of the backends. The
 * server's shared processes (WAL writer, checkpointer) are not included.
 */
export async function readBackendCpu(client: pg.Client, database: string): Promise<BackendCpu> {
  const { rows } = await client.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
    [database],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) cpu.set(pid, ms);
  }
  return cpu;
}

/**
 * CPU the backends used between two readings; a backend that connected in between counts from
 * zero (it started in the window). A backend that disconnected in between is missed, so the
 * figure is a lower bound (the pools keep their connections while busy).
 */
export function backendCpuBetween(before: BackendCpu, after: BackendCpu): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
