import { ACTIVE_PHASES, type AgentId, nowTimestamp } from '@agent-teams/core';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { freezeJob } from '../../src/scheduler/freeze-job.js';
import { UNFINISHED } from '../../src/storage/job-reads.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { BENCH_AGENTS, benchOwner, openBenchStack, sendToAll } from '../harness/bench-stack.js';

/** The server id the seeded jobs are leased to; it has no `server_leases` row, so it counts as dead. */
export const DEAD_SERVER = 'srv_bench_dead';

/** Teams per owner (the limit is 20) and members per team (the limit is 8). */
const TEAMS_PER_OWNER = 20;
const SIZE = 8;

/**
 * Fills a migrated PostgreSQL database with `count` active jobs (a multiple of 8) leased to a
 * server that no longer renews: the state a crashed server leaves behind.
 *
 * @remarks The jobs are real: teams and requests through the core, then one admission pass with a
 * plan that admits every candidate (beyond the 8-slot cap, given as the pass's capacity, to load the claim query) and the
 * scheduler's own freeze, leasing them to {@link DEAD_SERVER}. One job per member, so the
 * one-active-job-per-conversation constraint holds.
 */
export async function seedOrphans(database: OpenedDatabase, count: number): Promise<void> {
  const stack = await openBenchStack(database);
  const clock = createSystemClock();
  const teamsNeeded = Math.ceil(count / SIZE);
  let made = 0;
  for (let owner = 0; made < teamsNeeded; owner += 1) {
    const teams = await stack.teams(benchOwner(owner), Math.min(TEAMS_PER_OWNER, teamsNeeded - made), SIZE);
    for (const team of teams) {
      await sendToAll(stack.core, benchOwner(owner), team, `orphan-${made}`, 'Instant answer');
      made += 1;
    }
  }
  const agents = new Map<AgentId, (typeof BENCH_AGENTS)[number]>(BENCH_AGENTS.map((agent) => [agent.id, agent]));
  const context = { now: nowTimestamp(clock), ids: createRandomIds() };
  await stack.store.admit({
    now: context.now,
    serverId: DEAD_SERVER,
    // Past the configured cap on purpose: the claim query is what is loaded here.
    capacity: count,
    plan: (snapshot) => ({ admit: snapshot.candidates.map((candidate) => candidate.jobId), round: snapshot.round }),
    freeze: (ctx) => freezeJob(ctx, agents, stack.runtimes, context),
  });
  // The caller owns the database; only the runtime of the seeding stack is released here.
  stack.runtime.dispose();
  const row = await database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASES)
    .where('lease_server', '=', DEAD_SERVER)
    .executeTakeFirstOrThrow();
  if (Number(row.n) !== count) throw new Error(`[agent-teams/bench] seeded ${row.n} orphaned jobs, wanted ${count}`);
}

/** Hands every active job back to the dead server (the fences stay, and keep counting up). */
export async function orphanAll(database: OpenedDatabase): Promise<void> {
  await database.db
    .updateTable('jobs')
    .set({ lease_server: DEAD_SERVER })
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASES)
    .execute();
}
