import { join } from 'node:path';
import { asOwnerId, type Core, isDomainError, type Member, type Team } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { createApp } from '../src/app/create-app.js';
import { createBenchPostgres } from './harness/bench-postgres.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, rate, summarize } from './harness/stats.js';

const SAMPLES = { full: 500, tiny: 5 } as const;
const CONTENTION_MS = { full: 3_000, tiny: 200 } as const;
/** Concurrent claimers of one task (one per member of a full team). */
const CLAIMERS = 8;
const owner = asOwnerId('bench-tasks');

async function teamOf(core: Core): Promise<{ team: Team; members: readonly Member[] }> {
  const members = Array.from({ length: CLAIMERS }, (_, i) => ({ name: `m${i}`, agentId: 'researcher' }));
  const team = await core.teams.create(owner, { clientRequestId: 'bench', name: 'Board', goal: 'Bench', members });
  return { team, members: await core.teams.members([team.id]) };
}

/** Claim (assign to a member) and release, alternately, on one uncontended task; each call timed. */
async function roundTrips(core: Core, ctx: BenchContext, team: Team, member: Member): Promise<number[]> {
  const { task } = await core.tasks.create(owner, { teamId: team.id, title: 'Solo', clientRequestId: 'solo' });
  let revision = task.revision;
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES[ctx.scale] * 2; i += 1) {
    const started = performance.now();
    const change = await core.tasks.assign(owner, {
      taskId: task.id,
      expectedRevision: revision,
      memberId: i % 2 === 0 ? member.id : null,
    });
    if (i % 2 === 0) samples.push(performance.now() - started);
    revision = change.task.revision;
  }
  return samples;
}

/**
 * Eight claimers race on one task for a fixed time: each reads the task, then claims it for its
 * member (or, when it owns it, releases it) at the revision it read. Counts the writes that won
 * and the stale refusals.
 */
async function contention(core: Core, ctx: BenchContext, team: Team, members: readonly Member[]) {
  const { task } = await core.tasks.create(owner, { teamId: team.id, title: 'Hot', clientRequestId: 'hot' });
  let won = 0;
  let stale = 0;
  const until = performance.now() + CONTENTION_MS[ctx.scale];
  const started = performance.now();
  await Promise.all(
    members.map(async (member) => {
      while (performance.now() < until) {
        const [current] = await core.load.tasks([task.id]);
        if (current === undefined) throw new Error('[agent-teams/bench] the task vanished');
        try {
          await core.tasks.assign(owner, {
            taskId: task.id,
            expectedRevision: current.revision,
            memberId: current.ownerId === member.id ? null : member.id,
          });
          won += 1;
        } catch (error) {
          if (!isDomainError(error, 'TASK_STALE_REVISION')) throw error;
          stale += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1_000;
  return { won, stale, seconds };
}

async function measure(ctx: BenchContext, database: string, label: string) {
  const app = await createApp({ database, catalog: new StaticCatalog(), scheduler: false });
  try {
    const { team, members } = await teamOf(app.core);
    ctx.log(`task-claims: ${label} round trips`);
    const solo = summarize(await roundTrips(app.core, ctx, team, members[0] as Member));
    ctx.log(`task-claims: ${label} contention`);
    const hot = await contention(app.core, ctx, team, members);
    return { label, solo, hot };
  } finally {
    await app.close();
  }
}

/**
 * `task-claims`: the round trip of one claim (`assignTask`'s use case: owner check, the board read,
 * the decision and the conditional write with its event in one transaction) and the claims per
 * second eight racing claimers get through on one task, on a SQLite file and on PostgreSQL.
 */
export const taskClaims: Benchmark = {
  name: 'task-claims',
  title: 'Task board: claim round trip and claims under contention',
  async run(ctx): Promise<BenchReport> {
    const runs = [await measure(ctx, join(ctx.dir, 'tasks.sqlite'), 'SQLite file')];
    const pg = await createBenchPostgres('tasks');
    try {
      runs.push(await measure(ctx, pg.url, 'PostgreSQL'));
    } finally {
      await pg.drop();
    }
    const metrics: Record<string, number> = {};
    const rows = runs.map(({ label, solo, hot }) => {
      const key = label === 'PostgreSQL' ? 'pg' : 'sqlite';
      metrics[`${key}_claimP50Ms`] = solo.p50;
      metrics[`${key}_claimP99Ms`] = solo.p99;
      metrics[`${key}_claimsPerSecond`] = hot.won / hot.seconds;
      metrics[`${key}_staleRatio`] = hot.stale / Math.max(1, hot.won + hot.stale);
      return [
        label,
        ms(solo.p50),
        ms(solo.p99),
        rate(hot.won / hot.seconds, 'claims/s'),
        rate(hot.stale / hot.seconds, '/s'),
      ];
    });
    return {
      tables: [
        { header: ['database', 'claim p50', 'claim p99', `won with ${CLAIMERS} racing`, 'stale refusals'], rows },
      ],
      method: [
        'The application as `serve` builds it (no scheduler), through the core use cases `assignTask` calls (GraphQL transport excluded); the SQLite file with the production pragmas, PostgreSQL a fresh database on the local server.',
        `Round trip: ${SAMPLES.full} claims of one uncontended task (each followed by an untimed release), timed from the call to its answer (tiny scale: ${SAMPLES.tiny}).`,
        `Contention: ${CLAIMERS} claimers on one task for ${CONTENTION_MS.full / 1_000} s, each reading the task and claiming (or releasing) it at the revision it read; a write that lost the race is refused TASK_STALE_REVISION and counted.`,
      ],
      metrics,
    };
  },
};
