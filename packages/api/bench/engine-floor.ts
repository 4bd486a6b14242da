import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDatabase } from '../src/storage/open-database.js';
import { drained, engineRun, SHAPES, type Shape, sendJobs, targetsOf } from './engine-run.js';
import { openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { statementHeader, statementRows } from './harness/statement-times.js';
import { type Replay, recordStatements, replayStatements } from './harness/statement-trace.js';

/** The engine goal of issue "performance users feel": CPU per instant job on SQLite, in ms. */
const GOAL_CPU_MS = 0.3;

/** One mode's figures: the engine as it runs, and its own statements replayed alone. */
interface Floor {
  readonly mode: 'drain' | 'live';
  readonly jobs: number;
  readonly engineCpuMs: number;
  readonly engineWallMs: number;
  readonly replay: Replay;
  /** The replay again, every statement timed. */
  readonly timed: Replay;
}

/**
 * Records the SQLite statements of one engine run (the `engine-throughput` workload) on a database
 * prepared as that run's, copies the database as it stood before the timed part, and replays the
 * recording on the copy.
 */
async function recordAndReplay(
  dir: string,
  shape: Shape,
  mode: 'drain' | 'live',
): Promise<{ replay: Replay; timed: Replay }> {
  const file = join(dir, `${mode}-recorded.sqlite`);
  const copy = join(dir, `${mode}-replayed.sqlite`);
  const timedCopy = join(dir, `${mode}-replayed-timed.sqlite`);
  // The teams (and, to drain, the queued jobs), written before the recording.
  const setup = await openBenchStack(await openDatabase(file));
  const targets = await targetsOf(setup, shape);
  if (mode === 'drain') await sendJobs(setup, targets, shape.jobs, shape);
  await setup.close();
  // Closed, SQLite has checkpointed and removed the log: the file alone is the database.
  if (existsSync(`${file}-wal`)) throw new Error('[agent-teams/bench] the log outlived its connection');
  copyFileSync(file, copy);
  copyFileSync(file, timedCopy);
  const recorder = recordStatements();
  let from = 0;
  let trace: ReturnType<typeof recorder.stop> = [];
  try {
    const stack = await openBenchStack(await openDatabase(file));
    try {
      if (mode === 'live') {
        await stack.scheduler.start();
        await sendJobs(stack, targets, shape.warmupJobs, shape);
        await drained(stack, 'floor warm-up', 60_000);
        from = recorder.mark();
        await sendJobs(stack, targets, shape.jobs, shape);
      } else {
        // As `engine-throughput` times a drain: from the scheduler's start.
        from = recorder.mark();
        await stack.scheduler.start();
      }
      await drained(stack, `recorded ${mode}`, 300_000);
      trace = recorder.stop();
    } finally {
      await stack.close();
    }
  } finally {
    recorder.stop();
  }
  // Only the server's connection to this file: the single-server lock holds a connection of its own.
  const server = resolve(file);
  const calls = trace.filter((call) => call.file === server);
  const untimed = trace.slice(0, from).filter((call) => call.file === server).length;
  return {
    replay: await replayStatements(copy, calls, untimed),
    timed: await replayStatements(timedCopy, calls, untimed, true),
  };
}

async function floorOf(dir: string, shape: Shape, mode: 'drain' | 'live'): Promise<Floor> {
  const run = await engineRun(await openDatabase(join(dir, `${mode}-engine.sqlite`)), shape, mode, shape.jobs);
  if (run.completed !== shape.jobs) throw new Error(`[agent-teams/bench] ${mode}: ${run.completed}/${shape.jobs}`);
  const { replay, timed } = await recordAndReplay(dir, shape, mode);
  return { mode, jobs: shape.jobs, engineCpuMs: run.cpuMs, engineWallMs: run.seconds * 1_000, replay, timed };
}

/** Statements listed one per row in the time tables; the rest share one row. */
const STATEMENT_ROWS = 12;

const ms = (value: number) => `${value.toFixed(3)} ms`;

/**
 * How much of an engine job's CPU is SQLite's own work on the statements the engine sends: the
 * floor those statements set under the CPU goal, whatever the JavaScript around them costs.
 */
export const engineFloor: Benchmark = {
  name: 'engine-floor',
  title: "Engine CPU per job next to its own SQLite statements replayed alone (the statements' floor)",
  async run(ctx): Promise<BenchReport> {
    const shape = SHAPES[ctx.scale];
    // Untimed: V8 compiles the engine's code first (a fresh process's first run is slower).
    await engineRun(await openDatabase(join(ctx.dir, 'warm-up.sqlite')), shape, 'drain', shape.jobs);
    const floors: Floor[] = [];
    for (const mode of ['drain', 'live'] as const) {
      ctx.log(`engine-floor: ${mode}…`);
      floors.push(await floorOf(ctx.dir, shape, mode));
    }
    const rows = floors.map((floor) => {
      const engine = floor.engineCpuMs / floor.jobs;
      const alone = floor.replay.cpuMs / floor.jobs;
      return [
        floor.mode === 'drain' ? 'drain (run only)' : 'live (send + run)',
        String(floor.jobs),
        (floor.replay.statements / floor.jobs).toFixed(1),
        ms(engine),
        ms(alone),
        `${((100 * alone) / engine).toFixed(0)} %`,
        `${ms(floor.engineWallMs / floor.jobs)} / ${ms(floor.replay.wallMs / floor.jobs)}`,
        `${(alone / GOAL_CPU_MS).toFixed(2)}×`,
      ];
    });
    const [drain, live] = floors as [Floor, Floor];
    return {
      tables: [
        {
          header: [
            'Run',
            'Jobs',
            'SQLite calls per job',
            'Engine CPU per job',
            'Its statements alone, CPU per job',
            'SQLite share',
            'Wall per job, engine / statements alone',
            `Statements alone ÷ the ${GOAL_CPU_MS} ms goal`,
          ],
          rows,
        },
        ...floors.map((floor) => ({
          title: `Where the ${floor.mode}'s statements alone spend their time (the replay again, every call timed; the ${STATEMENT_ROWS} costliest)`,
          header: statementHeader('job'),
          rows: statementRows(floor.timed.times ?? new Map(), floor.jobs, STATEMENT_ROWS),
        })),
      ],
      method: [
        `The \`engine-throughput\` workload (${shape.owners} owners × ${shape.teamsPerOwner} teams × ${shape.size} members, ${shape.jobs} instant scripted jobs; drain: queued first, then run; live: sent one request after another while the scheduler runs, after ${shape.warmupJobs} warm-up jobs). "Engine CPU per job": a run as \`engine-throughput\` times it (\`process.cpuUsage\` over the timed window, the checkpoint worker included), on a database of its own.`,
        "Then the same workload again on another database, with every better-sqlite3 call of the main thread recorded (`bench/harness/statement-trace.ts`: SQL, bound values, whether it threw; the wrappers sit on better-sqlite3's `Statement` prototype, so whatever prepared a statement is seen). The database was copied as it stood before the recorded run (closed, its log checkpointed), and the recording is replayed on the copy by better-sqlite3 alone: the server's pragmas (WAL, `synchronous=FULL`, `temp_store=MEMORY`) and its background checkpointer, each statement prepared once, readers fetching raw rows (no row objects). Calls before the timed part (start-up, warm-up) are replayed untimed; every timed call must succeed or fail as it did, else the section fails.",
        "A second copy is replayed with every call timed (`performance.now()` around it, as `engine-throughput` times its statements) for the tables of statements; the timing adds its own cost, so read their shares. The replay is the floor of these statements: SQLite's own work for the rows, indexes, log frames and syncs the engine asks for, with no JavaScript of the engine, Kysely or the runtime around it. The recorded part includes the harness's own \"are we done\" counts (one every 10 ms). \"SQLite share\" is the replay's CPU over the engine's. A COMMIT's sync blocks without using CPU, so wall time exceeds CPU time on both sides.",
      ],
      notes: [
        `Reading the numbers: the CPU goal is ${GOAL_CPU_MS} ms per job. What the engine spends beyond the replay (drain ${ms((drain.engineCpuMs - drain.replay.cpuMs) / drain.jobs)}, live ${ms((live.engineCpuMs - live.replay.cpuMs) / live.jobs)} per job) is the JavaScript: the scheduler, the store's writes and reads, Kysely, the runtime and building rows. When the replay alone is above the goal, no work on the JavaScript reaches it: only fewer or cheaper statements (fewer rows, indexes or commits per job) can.`,
      ],
      metrics: {
        drainEngineCpuMs: drain.engineCpuMs / drain.jobs,
        drainReplayCpuMs: drain.replay.cpuMs / drain.jobs,
        drainCallsPerJob: drain.replay.statements / drain.jobs,
        liveEngineCpuMs: live.engineCpuMs / live.jobs,
        liveReplayCpuMs: live.replay.cpuMs / live.jobs,
        liveCallsPerJob: live.replay.statements / live.jobs,
      },
    };
  },
};
