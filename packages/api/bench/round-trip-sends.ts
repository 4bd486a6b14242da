import { isTerminal } from '@agent-teams/core';
import { openDatabase } from '../src/storage/open-database.js';
import { createBenchPostgres } from './harness/bench-postgres.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import { startDelayProxy } from './harness/delay-proxy.js';
import { type Summary, summarize, waitUntil } from './harness/stats.js';

/** Sends and warm-up sends per run, by scale. */
export const SENDS = { full: { count: 100, warmup: 20 }, tiny: { count: 6, warmup: 2 } } as const;

/**
 * `requests.send` called → resolved for one member with a free slot and an idle conversation, one
 * send at a time, on a fresh PostgreSQL database reached straight or through a proxy holding each
 * chunk `delayMs` each way (`delay-proxy.ts`): the enqueue's transaction with the admission riding
 * it (decision 0229), so every round trip in it is in the figure. `pipelined` false: as with
 * `--pg-pipeline off` (decision 0251).
 */
export async function sendLatency(
  delayMs: number | null,
  count: number,
  warmup: number,
  pipelined = true,
): Promise<Summary> {
  const database = await createBenchPostgres(`round_trips_sends${delayMs === null ? '' : '_delayed'}`);
  const url = new URL(database.url);
  const proxy = delayMs === null ? null : await startDelayProxy(Number(url.port || 5432), delayMs);
  if (proxy !== null) url.host = `127.0.0.1:${proxy.port}`;
  try {
    const stack = await openBenchStack(await openDatabase(url.toString(), { postgresPipeline: pipelined }));
    try {
      await stack.scheduler.start();
      const teams = await stack.teams(benchOwner(0), 4, 2);
      const samples: number[] = [];
      for (let i = 0; i < count + warmup; i += 1) {
        const target = teams[i % teams.length];
        const member = target?.members[Math.floor(i / teams.length) % 2];
        if (!target || !member) throw new Error('[agent-teams/bench] team without members');
        const called = performance.now();
        const [job] = await stack.core.requests.send(benchOwner(0), {
          teamId: target.team.id,
          memberIds: [member.id],
          text: 'Ping',
          clientRequestId: `round-trip-send-${i}`,
        });
        const resolved = performance.now();
        if (!job) throw new Error('[agent-teams/bench] send returned no job');
        if (i >= warmup) samples.push(resolved - called);
        // The next send finds the slot and the conversation free again.
        await waitUntil(
          async () => {
            const [current] = await stack.store.findJobs([job.id]);
            return current !== undefined && isTerminal(current.phase);
          },
          `job ${job.id} finished`,
          30_000,
          2,
        );
      }
      return summarize(samples);
    } finally {
      await stack.close();
    }
  } finally {
    await proxy?.close();
    await database.drop();
  }
}
