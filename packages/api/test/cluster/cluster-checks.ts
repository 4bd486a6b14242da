import { expect, vi } from 'vitest';
import { conversations } from './cluster-client.js';
import type { ClusterObserver, JobRow } from './cluster-observer.js';
import type { ServerProcess } from './server-process.js';

/** Waits until the team has `count` jobs, every one in `phase`, and returns them (oldest first). */
export function jobsIn(
  observer: ClusterObserver,
  teamId: string,
  count: number,
  phase: string,
  timeout = 20_000,
): Promise<JobRow[]> {
  return vi.waitFor(
    async () => {
      const jobs = await observer.jobs([teamId]);
      expect(jobs.map((job) => job.phase)).toEqual(Array.from({ length: count }, () => phase));
      return jobs;
    },
    { timeout, interval: 50 },
  );
}

/** The phases of the team's jobs, oldest first. */
export async function phasesOf(observer: ClusterObserver, teamId: string): Promise<string[]> {
  return (await observer.jobs([teamId])).map((job) => job.phase);
}

/** Counts of `values`, as `[value, count]` pairs sorted by value (order-free multiset comparison). */
export function tally(values: readonly (string | null)[]): [string | null, number][] {
  const counts = new Map<string | null, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => String(a).localeCompare(String(b)));
}

/**
 * Asserts that each of these finished jobs ran its turn exactly once: one outcome message in the
 * shared record, one `runtime_runs` row, and one input and one final answer in its member's
 * conversation (`Member.conversation`, read through `server`).
 */
export async function expectEachRanOnce(
  observer: ClusterObserver,
  server: ServerProcess,
  token: string,
  teamId: string,
  jobIds: readonly string[],
): Promise<void> {
  const once = tally(jobIds.map((id) => `${id}:1`));
  const asTally = (counts: Map<string, number>) => tally([...counts].map(([id, n]) => `${id}:${n}`));
  expect(asTally(await observer.resultRecordsPerJob([teamId]))).toEqual(once);
  expect(asTally(await observer.runsPerJob(jobIds))).toEqual(once);
  const messages = [...(await conversations(server, token, teamId)).values()].flat();
  const perJob = (role: string) =>
    tally(messages.filter((m) => m.role === role && m.toolName === null).map((m) => m.job?.id ?? null));
  expect(perJob('USER')).toEqual(tally(jobIds));
  expect(perJob('ASSISTANT')).toEqual(tally(jobIds));
}
