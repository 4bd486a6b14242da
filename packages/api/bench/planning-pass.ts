import { join } from 'node:path';
import {
  type AdmissionPlan,
  type AdmissionSnapshot,
  type AgentDefinition,
  type AgentId,
  type JobId,
  JobPhase,
  nowTimestamp,
  planAdmissions,
} from '@agent-teams/core';
import { CompiledQuery } from 'kysely';
import { createRandomIds } from '../src/adapters/random-ids.js';
import { freezeJob } from '../src/scheduler/freeze-job.js';
import type { KyselyTeamStore } from '../src/storage/kysely-team-store.js';
import { openDatabase } from '../src/storage/open-database.js';
import { BENCH_AGENTS, type BenchStack, benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport, BenchScale } from './harness/benchmark.js';
import { ms, summarize } from './harness/stats.js';
import { explainPass, judgePlans, renderPlans } from './planning/query-plans.js';
import { RECORDS_PER_TEAM, seedFinished, seedQueued } from './planning/seed.js';

interface Shape {
  readonly owners: number;
  readonly teamsPerOwner: number;
  readonly finishedPerTeam: number;
  readonly queued: number;
  /** Idle passes timed before the finished history is inserted. */
  readonly bareProbes: number;
  readonly idlePasses: number;
  readonly admittingPasses: number;
  readonly fullPasses: number;
  readonly warmup: number;
  /** The second database: one owner, two teams, a deep history, a short queue. */
  readonly deep: { readonly finishedPerTeam: number; readonly queued: number; readonly passes: number };
}

const SHAPES: Record<BenchScale, Shape> = {
  full: {
    owners: 20,
    teamsPerOwner: 20,
    finishedPerTeam: 200,
    queued: 1_000,
    bareProbes: 50,
    idlePasses: 100,
    admittingPasses: 20,
    fullPasses: 100,
    warmup: 5,
    deep: { finishedPerTeam: 20_000, queued: 10, passes: 50 },
  },
  tiny: {
    owners: 2,
    teamsPerOwner: 2,
    finishedPerTeam: 5,
    queued: 40,
    bareProbes: 2,
    idlePasses: 3,
    admittingPasses: 2,
    fullPasses: 3,
    warmup: 1,
    deep: { finishedPerTeam: 50, queued: 4, passes: 2 },
  },
};

const MEMBERS_PER_TEAM = 2;

type Freeze = Parameters<KyselyTeamStore['admit']>[0]['freeze'];
type Plan = (snapshot: AdmissionSnapshot) => AdmissionPlan;

/** Timed `store.admit()` passes over one stack, with the scheduler's real freeze. */
function passes(stack: BenchStack) {
  const agents = new Map<AgentId, AgentDefinition>(BENCH_AGENTS.map((agent) => [agent.id, agent]));
  const ids = createRandomIds();
  const clock = { nowMs: () => Date.now() };
  const freeze: Freeze = (fctx) => freezeJob(fctx, agents, stack.runtimes, { now: nowTimestamp(clock), ids });
  let candidates = 0;
  /** A plan that admits nothing and keeps the round: the state stays the same. */
  const idle: Plan = (snapshot) => {
    candidates = snapshot.candidates.length;
    return { admit: [], round: snapshot.round };
  };
  const time = async (plan: Plan) => {
    const started = performance.now();
    const admitted = await stack.store.admit({ now: nowTimestamp(clock), plan, freeze });
    return { ms: performance.now() - started, admitted: admitted.map((a) => a.job.id) };
  };
  const series = async (plan: Plan, count: number, warmup: number) => {
    for (let i = 0; i < warmup; i += 1) await time(plan);
    const samples: number[] = [];
    for (let i = 0; i < count; i += 1) samples.push((await time(plan)).ms);
    return samples;
  };
  /** Untimed: admitted jobs finish, so the next pass again finds free slots. */
  const finish = async (jobIds: readonly JobId[]) => {
    if (jobIds.length === 0) return;
    await stack.database.db
      .updateTable('jobs')
      .set({ phase: JobPhase.COMPLETED, unfinished: 0, finished_at: nowTimestamp(clock) })
      .where('id', 'in', jobIds)
      .execute();
  };
  return { freeze, idle, time, series, finish, candidates: () => candidates };
}

async function seeded(stack: BenchStack, step: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await step();
  await stack.database.db.executeQuery(CompiledQuery.raw('ANALYZE'));
  return (performance.now() - started) / 1000;
}

async function assertCounts(stack: BenchStack, total: number, open: number): Promise<void> {
  const counted = await stack.database.db
    .selectFrom('jobs')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('unfinished').as('open')])
    .executeTakeFirstOrThrow();
  if (Number(counted.n) !== total || Number(counted.open) !== open) {
    throw new Error(`[agent-teams/bench] seeding produced ${counted.n} jobs (${counted.open} unfinished)`);
  }
}

const row = (label: string, samples: readonly number[]) => {
  const s = summarize(samples);
  return [label, String(s.count), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
};

/** The large database the planner must stay fast on: many owners and teams, a wide queue. */
async function wide(ctx: Parameters<Benchmark['run']>[0], shape: Shape) {
  const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'planning.sqlite')));
  try {
    for (let o = 0; o < shape.owners; o += 1) await stack.teams(benchOwner(o), shape.teamsPerOwner, MEMBERS_PER_TEAM);
    const teams = shape.owners * shape.teamsPerOwner;
    const history = teams * shape.finishedPerTeam;
    const db = stack.database.db;
    const p = passes(stack);
    let seedSeconds = await seeded(stack, () => db.transaction().execute((trx) => seedQueued(trx, shape.queued)));
    const bare = await p.series(p.idle, shape.bareProbes, shape.warmup);
    ctx.log(`seeding ${history} finished jobs…`);
    seedSeconds += await seeded(stack, () =>
      db.transaction().execute((trx) => seedFinished(trx, shape.finishedPerTeam)),
    );
    await assertCounts(stack, history + shape.queued, shape.queued);
    const idle = await p.series(p.idle, shape.idlePasses, shape.warmup);
    const candidates = p.candidates();
    const admitting: number[] = [];
    let admitted = 0;
    let last: readonly JobId[] = [];
    for (let i = 0; i < shape.admittingPasses; i += 1) {
      await p.finish(last);
      const pass = await p.time(planAdmissions);
      admitting.push(pass.ms);
      admitted += pass.admitted.length;
      last = pass.admitted;
    }
    // The last admitted jobs stay active: every slot is taken and the real planner admits nothing.
    const full = await p.series(planAdmissions, shape.fullPasses, 0);
    await p.finish(last);
    const plans = await explainPass(db, p.freeze);
    return { bare, idle, admitting, full, admitted, candidates, plans, history, seedSeconds };
  } finally {
    await stack.close();
  }
}

/** A small team with a deep history: the case where a wrong index choice would read history. */
async function deep(ctx: Parameters<Benchmark['run']>[0], shape: Shape) {
  const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'deep.sqlite')));
  try {
    await stack.teams(benchOwner(0), 2, MEMBERS_PER_TEAM);
    const history = 2 * shape.deep.finishedPerTeam;
    const db = stack.database.db;
    const p = passes(stack);
    await seeded(stack, () => db.transaction().execute((trx) => seedQueued(trx, shape.deep.queued)));
    const bare = await p.series(p.idle, shape.deep.passes, shape.warmup);
    ctx.log(`seeding ${history} finished jobs in 2 teams…`);
    await seeded(stack, () => db.transaction().execute((trx) => seedFinished(trx, shape.deep.finishedPerTeam)));
    await assertCounts(stack, history + shape.deep.queued, shape.deep.queued);
    const idle = await p.series(p.idle, shape.deep.passes, shape.warmup);
    const plans = await explainPass(db, p.freeze);
    return { bare, idle, plans, history, candidates: p.candidates() };
  } finally {
    await stack.close();
  }
}

/**
 * Planning-pass time: `store.admit()` on a database with 20 owners × 20 teams × 200 finished
 * jobs plus 1,000 queued, and the query plans that show what the pass reads.
 */
export const planningPass: Benchmark = {
  name: 'planning-pass',
  title: 'Planning pass (`store.admit`) over a large finished history',
  async run(ctx): Promise<BenchReport> {
    const shape = SHAPES[ctx.scale];
    const w = await wide(ctx, shape);
    const d = await deep(ctx, shape);
    const wideJudged = judgePlans(w.plans, w.history);
    const deepJudged = judgePlans(d.plans, d.history);
    const teams = shape.owners * shape.teamsPerOwner;
    return {
      tables: [
        {
          title: `${shape.owners} owners × ${shape.teamsPerOwner} teams, ${w.history.toLocaleString('en-US')} finished + ${shape.queued.toLocaleString('en-US')} queued jobs (${w.candidates} heads offered to the planner: each owner’s oldest, one more than the free slots)`,
          header: ['Pass', 'Passes', 'p50', 'p90', 'p99', 'max'],
          rows: [
            row('plan admits nothing, before the finished history was inserted', w.bare),
            row('plan admits nothing (state unchanged, 0 active)', w.idle),
            row(`real planner admits 8 (slots freed between passes; ${w.admitted} admitted in all)`, w.admitting),
            row('real planner, all 8 slots taken (admits 0)', w.full),
          ],
        },
        {
          title: `1 owner × 2 teams, ${d.history.toLocaleString('en-US')} finished + ${shape.deep.queued} queued jobs (deep history)`,
          header: ['Pass', 'Passes', 'p50', 'p90', 'p99', 'max'],
          rows: [
            row('plan admits nothing, before the finished history was inserted', d.bare),
            row('plan admits nothing, with the history', d.idle),
          ],
        },
      ],
      method: [
        `Wide database: ${shape.owners} owners × ${shape.teamsPerOwner} teams (${teams} teams of 2 members, created through \`core.teams.create\`); ${shape.queued.toLocaleString('en-US')} QUEUED jobs spread round-robin over every team (so every owner) and member; ${w.history.toLocaleString('en-US')} COMPLETED jobs (${shape.finishedPerTeam} per team, alternating members, each with a ~1.5 KB frozen input and a result); a record message for the newest ${RECORDS_PER_TEAM} finished jobs per team. Each set is one \`INSERT … SELECT\` over a recursive CTE in one transaction with the columns the store writes, then \`ANALYZE\` (${w.seedSeconds.toFixed(1)} s in all). The queued jobs go in first, so the first row is timed without history; the finished rows then have higher \`seq\`, which no planning query orders by.`,
        `Timed: one \`store.admit()\` call each: one \`BEGIN IMMEDIATE\` transaction with the round state, the active count, the heads offered to the planner (decision 0226), the plan, the round update, the freeze of each admitted job, and COMMIT with fsync. ${shape.warmup} untimed warm-up passes before each idle series.`,
        `Rows: ${shape.bareProbes} and ${shape.idlePasses} passes with a plan that admits nothing (the state stays the same); ${shape.admittingPasses} passes with the real \`planAdmissions\` and the scheduler's \`freezeJob\`, the 8 jobs admitted by the previous pass marked COMPLETED by one untimed UPDATE before each; ${shape.fullPasses} passes with the real planner while 8 admitted jobs hold every slot.`,
        `Deep database: 1 owner, 2 teams, ${shape.deep.finishedPerTeam.toLocaleString('en-US')} finished jobs per team and ${shape.deep.queued} queued, seeded the same way; ${shape.deep.passes} idle passes before and after the history.`,
        'Query plans: `EXPLAIN QUERY PLAN` of every distinct SELECT of one admitting pass, captured from the store through a Kysely plugin and explained with the same parameters, after `ANALYZE`. A read of `jobs` counts as safe when it uses a `jobs_unfinished_*` partial index or looks one job up by id.',
      ],
      notes: [
        `**Wide database:** ${wideJudged.verdict}`,
        renderPlans(w.plans),
        `**Deep database:** ${deepJudged.verdict}`,
        ...(deepJudged.other > 0 ? [renderPlans(d.plans)] : []),
      ],
      metrics: {
        idleP50Ms: summarize(w.idle).p50,
        idleP99Ms: summarize(w.idle).p99,
        admittingP50Ms: summarize(w.admitting).p50,
        fullP50Ms: summarize(w.full).p50,
        admitted: w.admitted,
        candidates: w.candidates,
        explainedQueries: w.plans.length,
        nonPartialJobsAccess: wideJudged.other,
        deepNonPartialJobsAccess: deepJudged.other,
        deepIdleP50Ms: summarize(d.idle).p50,
      },
    };
  },
};
