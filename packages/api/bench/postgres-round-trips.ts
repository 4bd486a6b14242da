import { openDatabase } from '../src/storage/open-database.js';
import { type EngineRun, engineRun, SHAPES } from './engine-run.js';
import { createBenchPostgres } from './harness/bench-postgres.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { startDelayProxy } from './harness/delay-proxy.js';
import { countStatements } from './harness/statement-counter.js';
import { latencyCells, ms, rate } from './harness/stats.js';
import { SENDS, sendLatency } from './round-trip-sends.js';

/** How long the proxy holds each chunk in each direction: a 2 ms round trip, as between zones. */
const DELAY_MS = 1;

/** Jobs per run by scale (the delayed runs are slow by design: each round trip waits 2 ms). */
const JOBS = { full: 800, tiny: 16 } as const;

type Mode = 'drain' | 'live';

/** One PostgreSQL engine run, straight or through the proxy, with what it sent. */
interface Run extends EngineRun {
  /** Chunks the proxy passed to the server per job (through the proxy only). */
  readonly chunksPerJob: number | null;
}

/**
 * An engine run on a fresh database, through a {@link DELAY_MS} proxy when `delayed`; with
 * `pipelined` false, as with `--pg-pipeline off` (the baseline of decision 0251).
 */
async function run(mode: Mode, jobs: number, delayed: boolean, shape = SHAPES.full, pipelined = true): Promise<Run> {
  const database = await createBenchPostgres(`round_trips_${mode}${delayed ? '_delayed' : ''}`);
  const url = new URL(database.url);
  const proxy = delayed ? await startDelayProxy(Number(url.port || 5432), DELAY_MS) : null;
  try {
    if (proxy !== null) url.host = `127.0.0.1:${proxy.port}`;
    const opened = await openDatabase(url.toString(), { postgresPipeline: pipelined });
    const result = await engineRun(opened, shape, mode, jobs);
    return { ...result, chunksPerJob: proxy === null ? null : proxy.chunks.toServer / jobs };
  } finally {
    await proxy?.close();
    await database.drop();
  }
}

/** Data statements per job (SELECT/INSERT/UPDATE/DELETE; not BEGIN or COMMIT) over a straight run. */
async function statementsPerJob(mode: Mode, jobs: number, shape = SHAPES.full): Promise<number> {
  const database = await createBenchPostgres(`round_trips_${mode}_counted`);
  try {
    const counted = countStatements(await openDatabase(database.url));
    await engineRun(counted, shape, mode, jobs);
    return counted.statements() / jobs;
  } finally {
    await database.drop();
  }
}

/**
 * The engine on PostgreSQL across a network: the same drain and live runs as `postgres-engine`,
 * straight to the server on loopback and through a proxy that holds each packet {@link DELAY_MS} ms
 * each way, so each round trip of a transaction is time every other admission waits.
 */
export const postgresRoundTrips: Benchmark = {
  name: 'postgres-round-trips',
  title: 'Engine throughput on PostgreSQL across a network (each round trip 2 ms)',
  async run(ctx): Promise<BenchReport> {
    const jobs = JOBS[ctx.scale];
    const shape = SHAPES[ctx.scale];
    const rows: string[][] = [];
    const metrics: Record<string, number> = {};
    for (const mode of ['drain', 'live'] as const) {
      ctx.log(`${mode}: straight, then through the proxy (${jobs} jobs each)…`);
      const straight = await run(mode, jobs, false, shape);
      const delayed = await run(mode, jobs, true, shape);
      const unpipelined = await run(mode, jobs, true, shape, false);
      const statements = await statementsPerJob(mode, jobs, shape);
      const perSecond = (r: Run) => r.completed / r.seconds;
      for (const [label, r] of [
        [`${mode}, loopback`, straight],
        [`${mode}, through the proxy (${DELAY_MS} ms each way)`, delayed],
        [`${mode}, through the proxy, \`--pg-pipeline off\` (baseline)`, unpipelined],
      ] as const) {
        rows.push([
          label,
          `${r.completed}/${r.jobs}`,
          `${rate(perSecond(r), 'jobs/s')} (${r.seconds.toFixed(2)} s)`,
          ms(r.cpuMs / r.jobs),
          statements.toFixed(2),
          r.chunksPerJob === null ? '' : r.chunksPerJob.toFixed(2),
        ]);
      }
      metrics[`${mode}JobsPerSecond`] = perSecond(straight);
      metrics[`${mode}DelayedJobsPerSecond`] = perSecond(delayed);
      metrics[`${mode}DelayedRatio`] = perSecond(delayed) / perSecond(straight);
      metrics[`${mode}UnpipelinedJobsPerSecond`] = perSecond(unpipelined);
      metrics[`${mode}ChunksPerJob`] = delayed.chunksPerJob ?? 0;
      metrics[`${mode}UnpipelinedChunksPerJob`] = unpipelined.chunksPerJob ?? 0;
      metrics[`${mode}StatementsPerJob`] = statements;
    }
    ctx.log('sends, straight and through the proxy…');
    const sends = SENDS[ctx.scale];
    const straightSends = await sendLatency(null, sends.count, sends.warmup);
    const delayedSends = await sendLatency(DELAY_MS, sends.count, sends.warmup);
    const unpipelinedSends = await sendLatency(DELAY_MS, sends.count, sends.warmup, false);
    metrics.sendP50Ms = straightSends.p50;
    metrics.delayedSendP50Ms = delayedSends.p50;
    return {
      tables: [
        {
          header: [
            'Run',
            'Completed',
            'Jobs/s',
            'Node CPU per job (proxy included when used)',
            'Data statements per job',
            'Chunks sent to the server per job',
          ],
          rows,
        },
        {
          title:
            '`requests.send` called → resolved (one member, a free slot: the enqueue with its admission riding it)',
          header: ['Database', 'Samples', 'p50', 'p90', 'p99', 'max', 'mean'],
          rows: [
            ['PostgreSQL on loopback', ...latencyCells(straightSends)],
            [`PostgreSQL through the proxy (${DELAY_MS} ms each way)`, ...latencyCells(delayedSends)],
            ['PostgreSQL through the proxy, `--pg-pipeline off` (baseline)', ...latencyCells(unpipelinedSends)],
          ],
        },
      ],
      method: [
        `The workload of \`postgres-engine\` (${shape.owners} owners × ${shape.teamsPerOwner} teams × ${shape.size} members, instant scripted turns, the 8 slots kept full), ${jobs} jobs per run, each run on a fresh migrated database: drain (enqueued first, timed from \`scheduler.start()\` until none is unfinished) and live (sent while the scheduler runs, after an untimed warm-up).`,
        `"Through the proxy": the server's connections go through a TCP proxy in the benchmark's process (\`harness/delay-proxy.ts\`) that holds every chunk ${DELAY_MS} ms in each direction, so each round trip takes at least ${2 * DELAY_MS} ms more, as to a database in another zone; its CPU counts in the Node column. The admission holds the planning lock (\`scheduler_state\`) for its whole transaction, so its round trips are time every other pass waits.`,
        `Sends: ${sends.count} sequential \`requests.send\` calls (after ${sends.warmup} not counted) to one member of 4 teams of 2 in rotation, each on a fresh database, each waiting until its job finished, so every send finds a free slot and an idle conversation and its admission rides its enqueue's transaction (decision 0229): the time from the call to the promise resolving holds every round trip of that transaction.`,
        'The baseline rows run the same through the proxy with `--pg-pipeline off` (each statement sent after the answer of the one before it; decision 0251), in the same run.',
        '"Data statements per job": SELECT/INSERT/UPDATE/DELETE run through the store, counted on a third, straight run (a Kysely plugin that changes nothing; BEGIN and COMMIT not counted). "Chunks sent to the server per job": what the proxy passed on, at least one per round trip.',
      ],
      notes: [
        `Round trips (chunks) per job through the proxy, pipelined against \`--pg-pipeline off\`: drain ${metrics.drainChunksPerJob?.toFixed(2)} against ${metrics.drainUnpipelinedChunksPerJob?.toFixed(2)}, live ${metrics.liveChunksPerJob?.toFixed(2)} against ${metrics.liveUnpipelinedChunksPerJob?.toFixed(2)}; a send ${ms(delayedSends.p50)} against ${ms(unpipelinedSends.p50)} at p50.`,
        `Through the proxy ÷ loopback, jobs/s: drain ${metrics.drainDelayedRatio?.toFixed(2)}, live ${metrics.liveDelayedRatio?.toFixed(2)}. A send took ${ms(delayedSends.p50)} at p50 through the proxy against ${ms(straightSends.p50)} on loopback: about ${((delayedSends.p50 - straightSends.p50) / (2 * DELAY_MS)).toFixed(1)} round trips of ${2 * DELAY_MS} ms.`,
      ],
      metrics,
    };
  },
};
