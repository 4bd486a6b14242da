import { JobPhase, type OwnerId } from '@agent-teams/core';
import type { OpenedDatabase } from '../src/storage/open-database.js';
import { type BenchStack, benchOwner, openBenchStack, sendToAll } from './harness/bench-stack.js';
import type { BenchScale } from './harness/benchmark.js';
import { waitUntil } from './harness/stats.js';

// One engine run (`engine-throughput`, `postgres-engine`): its workload, its requests and its timing.

/** The workload of one engine run (see `SHAPES`). */
export interface Shape {
  readonly owners: number;
  readonly teamsPerOwner: number;
  readonly size: number;
  readonly jobs: number;
  readonly warmupJobs: number;
  readonly profileJobs: number;
  readonly rawCommits: number;
  readonly rawMs: number;
}

/** The workload by scale; `postgres-engine` runs the same one on PostgreSQL. */
export const SHAPES: Record<BenchScale, Shape> = {
  full: {
    owners: 5,
    teamsPerOwner: 10,
    size: 8,
    jobs: 2_000,
    warmupJobs: 80,
    profileJobs: 400,
    rawCommits: 5_000,
    rawMs: 3_000,
  },
  tiny: { owners: 2, teamsPerOwner: 2, size: 4, jobs: 16, warmupJobs: 8, profileJobs: 16, rawCommits: 100, rawMs: 200 },
};

export type Target = { owner: OwnerId; team: Awaited<ReturnType<BenchStack['teams']>>[number] };

/** One engine run: the jobs it finished and how long that took. */
export interface EngineRun {
  readonly jobs: number;
  readonly seconds: number;
  readonly completed: number;
  /** CPU time of this process (user + system) in the timed window, in milliseconds. */
  readonly cpuMs: number;
}

export async function targetsOf(stack: BenchStack, shape: Shape): Promise<Target[]> {
  const targets: Target[] = [];
  for (let o = 0; o < shape.owners; o += 1) {
    const owner = benchOwner(o);
    for (const team of await stack.teams(owner, shape.teamsPerOwner, shape.size)) targets.push({ owner, team });
  }
  return targets;
}

let sendCounter = 0;

/** The text of the `i`-th request of a run. */
export type RequestText = (i: number) => string;

/** No directive: every scripted turn is instant, its answer "m<i>: Instant answer <n>". */
export const INSTANT_TEXT: RequestText = (i) => `Instant answer ${i}`;

/**
 * Each member answers with this many bytes (`!bytes`), so a team's newest records fill its context:
 * seven or eight 2.8 KB answers, about 23 KB of the 24,000 bytes every frozen turn carries, as in a
 * team whose agents write full answers (each at most 6,000 bytes).
 */
export const FULL_ANSWER_BYTES = 2_800;

/** Instant turns whose answers are {@link FULL_ANSWER_BYTES} long. */
export const FULL_ANSWER_TEXT: RequestText = () => `!bytes ${FULL_ANSWER_BYTES}`;

/** Sends `jobs` jobs (one request to all members of a team, teams in rotation). */
export async function sendJobs(
  stack: BenchStack,
  targets: readonly Target[],
  jobs: number,
  shape: Shape,
  text: RequestText = INSTANT_TEXT,
): Promise<void> {
  for (let i = 0; i < jobs / shape.size; i += 1) {
    const target = targets[i % targets.length] as Target;
    sendCounter += 1;
    await sendToAll(stack.core, target.owner, target.team, `throughput-${sendCounter}`, text(i));
  }
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function drained(stack: BenchStack, what: string, timeoutMs: number): Promise<void> {
  await waitUntil(async () => (await stack.unfinished()) === 0, what, timeoutMs, 10);
}

async function completedCount(stack: BenchStack): Promise<number> {
  const row = await stack.database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('phase', '=', JobPhase.COMPLETED)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Called right before and right after an engine run's timed window (e.g. to read other processes' CPU). */
export interface WindowProbe {
  start(): Promise<void>;
  end(): Promise<void>;
}

/**
 * Live: the scheduler runs while the requests are sent one after the other (enqueue commits are
 * inside the timed window). Drain: all requests are enqueued first, then the scheduler starts.
 */
export async function engineRun(
  database: OpenedDatabase,
  shape: Shape,
  mode: 'live' | 'drain',
  jobs: number,
  probe?: WindowProbe,
  text: RequestText = INSTANT_TEXT,
): Promise<EngineRun> {
  const stack = await openBenchStack(database);
  try {
    const targets = await targetsOf(stack, shape);
    if (mode === 'live') {
      await stack.scheduler.start();
      await sendJobs(stack, targets, shape.warmupJobs, shape);
      await drained(stack, 'warm-up jobs', 60_000);
      const before = await completedCount(stack);
      await probe?.start();
      const started = performance.now();
      const cpu = process.cpuUsage();
      await sendJobs(stack, targets, jobs, shape, text);
      await drained(stack, 'timed jobs', 300_000);
      const seconds = (performance.now() - started) / 1000;
      const cpuMs = cpuMsSince(cpu);
      await probe?.end();
      return { jobs, seconds, completed: (await completedCount(stack)) - before, cpuMs };
    }
    await sendJobs(stack, targets, jobs, shape, text);
    await probe?.start();
    const started = performance.now();
    const cpu = process.cpuUsage();
    await stack.scheduler.start();
    await drained(stack, 'queued jobs', 300_000);
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = cpuMsSince(cpu);
    await probe?.end();
    return { jobs, seconds, completed: await completedCount(stack), cpuMs };
  } finally {
    await stack.close();
  }
}
