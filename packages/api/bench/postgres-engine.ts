import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/storage/open-database.js';
import { type EngineRun, engineRun, SHAPES, type Shape, type WindowProbe } from './engine-run.js';
import { BENCH_POSTGRES_ADMIN, createBenchPostgres } from './harness/bench-postgres.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { rawPostgresCommitRate } from './harness/postgres-commit-rate.js';
import { type BackendCpu, backendCpuBetween, readBackendCpu } from './harness/postgres-cpu.js';
import { rawCommitRate } from './harness/raw-commit-rate.js';
import { ms, rate } from './harness/stats.js';

type Mode = 'live' | 'drain';

/** One engine run on PostgreSQL, with the CPU its backends used in the timed window. */
interface PostgresRun extends EngineRun {
  readonly backendCpuMs: number;
}

/** Runs the `engine-throughput` workload on a fresh PostgreSQL database and drops it. */
async function postgresRun(shape: Shape, mode: Mode, prepared = true): Promise<PostgresRun> {
  const database = await createBenchPostgres(`engine_${mode}${prepared ? '' : '_unprepared'}`);
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_ADMIN });
  await admin.connect();
  try {
    let before: BackendCpu = new Map();
    let backendCpuMs = 0;
    const probe: WindowProbe = {
      async start() {
        before = await readBackendCpu(admin, database.name);
      },
      async end() {
        backendCpuMs = backendCpuBetween(before, await readBackendCpu(admin, database.name));
      },
    };
    const opened = await openDatabase(database.url, { postgresPrepared: prepared });
    const run = await engineRun(opened, shape, mode, shape.jobs, probe);
    return { ...run, backendCpuMs };
  } finally {
    await admin.end();
    await database.drop();
  }
}

async function sqliteRun(ctx: BenchContext, shape: Shape, mode: Mode): Promise<EngineRun> {
  return engineRun(await openDatabase(join(ctx.dir, `engine-${mode}.sqlite`)), shape, mode, shape.jobs);
}

/**
 * Engine jobs/s on PostgreSQL next to SQLite, measured in the same run with the workload of
 * `engine-throughput` (instant scripted turns, the 8 slots kept full), with the CPU per job of
 * the Node process and, on PostgreSQL, of the server backends.
 */
export const postgresEngine: Benchmark = {
  name: 'postgres-engine',
  title: 'Engine throughput on PostgreSQL next to SQLite',
  async run(ctx): Promise<BenchReport> {
    const shape = SHAPES[ctx.scale];
    const limits = { maxCommits: shape.rawCommits, maxMs: shape.rawMs };
    const raw = async (label: string) => {
      const sqlite = rawCommitRate(join(ctx.dir, `raw-${label}.sqlite`), limits).perSecond;
      const rawDb = await createBenchPostgres(`raw_${label}`);
      try {
        const postgres = (await rawPostgresCommitRate(rawDb.url, limits)).perSecond;
        ctx.log(`raw commits/s ${label}: SQLite ${Math.round(sqlite)}, PostgreSQL ${Math.round(postgres)}`);
        return { sqlite, postgres };
      } finally {
        await rawDb.drop();
      }
    };
    const rawBefore = await raw('before');
    // Interleaved, so a change in the machine's load hits both engines alike.
    ctx.log(`live runs (${shape.jobs} jobs each)…`);
    const liveSqlite = await sqliteRun(ctx, shape, 'live');
    const livePostgres = await postgresRun(shape, 'live');
    ctx.log(`drain runs (${shape.jobs} jobs each)…`);
    const drainSqlite = await sqliteRun(ctx, shape, 'drain');
    const drainPostgres = await postgresRun(shape, 'drain');
    // The baseline of prepared statements: the same drain with every statement sent unnamed.
    const drainUnprepared = await postgresRun(shape, 'drain', false);
    const rawAfter = await raw('after');
    const rawSqlite = (rawBefore.sqlite + rawAfter.sqlite) / 2;
    const rawPostgres = (rawBefore.postgres + rawAfter.postgres) / 2;
    const perSecond = (run: EngineRun) => run.completed / run.seconds;
    const engineRow = (label: string, run: EngineRun, backendMs: number | null, rawRate: number) => [
      label,
      `${run.completed}/${run.jobs}`,
      `${rate(perSecond(run), 'jobs/s')} (${run.seconds.toFixed(2)} s)`,
      ms(run.cpuMs / run.jobs),
      backendMs === null ? '' : ms(backendMs / run.jobs),
      (perSecond(run) / rawRate).toFixed(2),
    ];
    const conversations = shape.owners * shape.teamsPerOwner * shape.size;
    return {
      tables: [
        {
          header: [
            'Run',
            'Completed',
            'Jobs/s',
            'Node CPU per job',
            'PostgreSQL CPU per job',
            'Jobs/s ÷ raw commits/s',
          ],
          rows: [
            engineRow('SQLite, live (send + run)', liveSqlite, null, rawSqlite),
            engineRow('PostgreSQL, live (send + run)', livePostgres, livePostgres.backendCpuMs, rawPostgres),
            engineRow('SQLite, drain (run only)', drainSqlite, null, rawSqlite),
            engineRow('PostgreSQL, drain (run only)', drainPostgres, drainPostgres.backendCpuMs, rawPostgres),
            engineRow(
              'PostgreSQL, drain, statements unprepared (`--pg-prepared-statements off`; baseline)',
              drainUnprepared,
              drainUnprepared.backendCpuMs,
              rawPostgres,
            ),
          ],
        },
        {
          title: 'Raw single-row commits of one sequential writer (before / after the runs)',
          header: ['Engine', 'Before', 'After'],
          rows: [
            ['SQLite file (WAL, synchronous=FULL)', rate(rawBefore.sqlite, '/s'), rate(rawAfter.sqlite, '/s')],
            ['PostgreSQL (synchronous_commit=on)', rate(rawBefore.postgres, '/s'), rate(rawAfter.postgres, '/s')],
          ],
        },
      ],
      method: [
        `The workload and timing of the \`engine-throughput\` section (its own functions): ${shape.owners} owners × ${shape.teamsPerOwner} teams × ${shape.size} members (${conversations} conversations, so the 8 slots stay full), ${shape.jobs} jobs per run, instant scripted turns; live = the scheduler runs while the requests are sent, after an untimed warm-up of ${shape.warmupJobs} jobs; drain = the jobs are enqueued first, timed from \`scheduler.start()\` until none is unfinished.`,
        'SQLite: a temporary file with the production pragmas (better-sqlite3 is synchronous, so each fsync blocks the event loop). PostgreSQL: a fresh migrated database per run on the local server through `openDatabase` (node-postgres pool of 10, READ COMMITTED plus row locks, the planning lock on `scheduler_state`); one server process, as the only writer.',
        'Runs interleave (SQLite live, PostgreSQL live, SQLite drain, PostgreSQL drain, then PostgreSQL drain with every statement sent unnamed as the baseline of prepared statements), so a change in load hits both engines alike.',
        '"Node CPU per job": user + system CPU of the benchmark process over the timed window ÷ jobs. "PostgreSQL CPU per job": user + system CPU (from `/proc/<pid>/stat`) of the client backends connected to the run\'s database over the same window ÷ jobs; the server\'s shared processes (WAL writer, checkpointer) are not counted, so it is a lower bound.',
        'Raw rate: one connection, `BEGIN` + one-row INSERT + `COMMIT` per transaction, up to ' +
          `${shape.rawCommits} timed commits or ${shape.rawMs / 1000} s after 50 untimed, before and after the runs; the ratio column uses the mean of the two for its engine.`,
      ],
      notes: [
        `PostgreSQL ÷ SQLite jobs/s: live ${(perSecond(livePostgres) / perSecond(liveSqlite)).toFixed(2)}, drain ${(perSecond(drainPostgres) / perSecond(drainSqlite)).toFixed(2)}. Per job on PostgreSQL the Node process spends ${ms(drainPostgres.cpuMs / drainPostgres.jobs)} and the backends ${ms(drainPostgres.backendCpuMs / drainPostgres.jobs)} of CPU (drain), on the same 2 cores; on SQLite the database work is inside the Node figure.`,
      ],
      metrics: {
        sqliteLiveJobsPerSecond: perSecond(liveSqlite),
        postgresLiveJobsPerSecond: perSecond(livePostgres),
        sqliteDrainJobsPerSecond: perSecond(drainSqlite),
        postgresDrainJobsPerSecond: perSecond(drainPostgres),
        postgresLiveCompleted: livePostgres.completed,
        postgresDrainCompleted: drainPostgres.completed,
        postgresBackendCpuMsPerJob: drainPostgres.backendCpuMs / drainPostgres.jobs,
        unpreparedBackendCpuMsPerJob: drainUnprepared.backendCpuMs / drainUnprepared.jobs,
        rawPostgresCommitsPerSecond: rawPostgres,
        rawSqliteCommitsPerSecond: rawSqlite,
      },
    };
  },
};
