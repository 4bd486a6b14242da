import { join } from 'node:path';
import { openDatabase } from '../src/storage/open-database.js';
import { describeCommit } from './engine-commit-labels.js';
import {
  drained,
  engineRun,
  FULL_ANSWER_BYTES,
  FULL_ANSWER_TEXT,
  SHAPES,
  type Shape,
  sendJobs,
  targetsOf,
} from './engine-run.js';
import { openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { openCountingDatabase } from './harness/commit-counter.js';
import { rawCommitRate } from './harness/raw-commit-rate.js';
import { statementHeader, statementRows } from './harness/statement-times.js';
import { ms, rate } from './harness/stats.js';

/** Statements listed one per row in the SQLite time table; the rest share one row. */
const STATEMENT_ROWS = 12;

/** The goal: engine jobs/s at least a quarter of the raw commit rate. */
const GOAL = 0.25;

/** The ratio jobs/s ÷ commits/s if a job costs `cpuMs` of CPU plus `commits` fsyncs at `raw` commits/s. */
function modelRatio(cpuMs: number, commits: number, raw: number): string {
  const jobsPerSecond = 1_000 / (cpuMs + (commits * 1_000) / raw);
  return (jobsPerSecond / raw).toFixed(2);
}

/** Runs the live mode on a counting connection and reports commits per job by kind. */
async function profile(
  dir: string,
  shape: Shape,
): Promise<{
  rows: string[][];
  statements: string[][];
  perJob: number;
  selectsPerJob: number;
  writesPerJob: number;
}> {
  const database = openCountingDatabase(join(dir, 'profile.sqlite'));
  const stack = await openBenchStack(database);
  try {
    const targets = await targetsOf(stack, shape);
    await stack.scheduler.start();
    await sendJobs(stack, targets, shape.warmupJobs, shape);
    await drained(stack, 'profile warm-up', 60_000);
    database.reset();
    await sendJobs(stack, targets, shape.profileJobs, shape);
    await drained(stack, 'profile jobs', 60_000);
    const counts = database.counts();
    // The drain check's own count queries are selects, not commits; they stay in `selects`.
    const jobs = shape.profileJobs;
    const entries = [...counts.commits.entries()].sort((a, b) => b[1] - a[1]);
    const total = entries.reduce((sum, [, n]) => sum + n, 0);
    const rows = entries.map(([label, n]) => [describeCommit(label), `\`${label}\``, String(n), (n / jobs).toFixed(3)]);
    rows.push(['**all commits**', '', String(total), `**${(total / jobs).toFixed(2)}**`]);
    return {
      rows,
      statements: statementRows(counts.statements, jobs, STATEMENT_ROWS),
      perJob: total / jobs,
      selectsPerJob: counts.selects / jobs,
      writesPerJob: counts.writes / jobs,
    };
  } finally {
    await stack.close();
  }
}

/**
 * Engine throughput with instant scripted agents, next to the raw single-row SQLite commit rate
 * with the same settings, in the same process and run.
 */
export const engineThroughput: Benchmark = {
  name: 'engine-throughput',
  title: 'Engine throughput vs. raw SQLite commit rate',
  async run(ctx): Promise<BenchReport> {
    const shape = SHAPES[ctx.scale];
    const measureRaw = (label: string) => {
      const r = rawCommitRate(join(ctx.dir, `raw-${label}.sqlite`), {
        maxCommits: shape.rawCommits,
        maxMs: shape.rawMs,
      });
      ctx.log(`raw commit rate ${label}: ${Math.round(r.perSecond)} commits/s over ${r.commits} commits`);
      return r;
    };
    const raw1 = measureRaw('1');
    ctx.log(`live engine run (${shape.jobs} jobs)…`);
    const live = await engineRun(await openDatabase(join(ctx.dir, 'live.sqlite')), shape, 'live', shape.jobs);
    const raw2 = measureRaw('2');
    ctx.log(`drain engine run (${shape.jobs} jobs)…`);
    const drain = await engineRun(await openDatabase(join(ctx.dir, 'drain.sqlite')), shape, 'drain', shape.jobs);
    const raw3 = measureRaw('3');
    ctx.log(`drain engine run with full answers (${shape.jobs} jobs)…`);
    const full = await engineRun(
      await openDatabase(join(ctx.dir, 'drain-full.sqlite')),
      shape,
      'drain',
      shape.jobs,
      undefined,
      FULL_ANSWER_TEXT,
    );
    const raw4 = measureRaw('4');
    ctx.log(`commit profile (${shape.profileJobs} jobs)…`);
    const counted = await profile(ctx.dir, shape);
    // Each engine run is compared with the raw rate measured right before and right after it.
    const liveRaw = (raw1.perSecond + raw2.perSecond) / 2;
    const drainRaw = (raw2.perSecond + raw3.perSecond) / 2;
    const fullRaw = (raw3.perSecond + raw4.perSecond) / 2;
    const fullRate = full.completed / full.seconds;
    const liveRate = live.completed / live.seconds;
    const drainRate = drain.completed / drain.seconds;
    const verdict = (ratio: number) => `${ratio.toFixed(2)} (goal ≥ ${GOAL}: ${ratio >= GOAL ? 'met' : 'missed'})`;
    const conversations = shape.owners * shape.teamsPerOwner * shape.size;
    return {
      tables: [
        {
          header: ['Measurement', 'Result', 'CPU per job', 'Jobs/s ÷ raw commits/s'],
          rows: [
            [
              'Raw SQLite single-row commits: before / between / between / after the runs',
              [raw1, raw2, raw3, raw4].map((raw) => rate(raw.perSecond, '/s')).join(' / '),
              '',
              '',
            ],
            [
              `Engine, live (send + run; ${live.completed}/${live.jobs} jobs completed)`,
              `${rate(liveRate, 'jobs/s')} (${live.seconds.toFixed(2)} s)`,
              ms(live.cpuMs / live.jobs),
              `${verdict(liveRate / liveRaw)} vs ${rate(liveRaw, 'commits/s')}`,
            ],
            [
              `Engine, drain (run only; ${drain.completed}/${drain.jobs} pre-enqueued jobs completed)`,
              `${rate(drainRate, 'jobs/s')} (${drain.seconds.toFixed(2)} s)`,
              ms(drain.cpuMs / drain.jobs),
              `${verdict(drainRate / drainRaw)} vs ${rate(drainRaw, 'commits/s')}`,
            ],
            [
              `Engine, drain with full answers (${FULL_ANSWER_BYTES.toLocaleString('en-US')} bytes each: a full team context in every frozen turn; ${full.completed}/${full.jobs} completed)`,
              `${rate(fullRate, 'jobs/s')} (${full.seconds.toFixed(2)} s)`,
              ms(full.cpuMs / full.jobs),
              `${verdict(fullRate / fullRaw)} vs ${rate(fullRaw, 'commits/s')}`,
            ],
          ],
        },
        {
          title: `Where the commits go (live mode, ${shape.profileJobs} jobs, counted on the connection)`,
          header: ['Commit', 'Writes in it', 'Count', 'Per job'],
          rows: counted.rows,
        },
        {
          title: `Where a job's SQLite time goes (the same run, every statement timed at execution; the ${STATEMENT_ROWS} costliest)`,
          header: statementHeader('job'),
          rows: counted.statements,
        },
      ],
      method: [
        `Raw rate: better-sqlite3 on a temporary file in the same directory, WAL, synchronous=FULL, \`BEGIN IMMEDIATE\` + one-row INSERT + COMMIT per transaction, up to ${shape.rawCommits} timed commits or ${shape.rawMs / 1000} s after 50 untimed; measured before, between and after the three engine runs, and each run's ratio uses the mean of the raw rates measured right before and right after it (the disk is shared, so the rate drifts).`,
        `Engine: ${shape.owners} owners × ${shape.teamsPerOwner} teams × ${shape.size} members (${conversations} conversations, so the 8 slots stay full); each request goes to all ${shape.size} members of a team, teams in rotation; the text has no directive, so every scripted turn is instant (answer "m<i>: Instant answer <n>").`,
        `Live: the scheduler runs while ${shape.jobs / shape.size} \`requests.send\` calls are made one after the other; timed from the first send to the moment no job is unfinished (checked every 10 ms with a count over the partial index), after an untimed warm-up of ${shape.warmupJobs} jobs. Enqueue commits are inside the window.`,
        'Drain: the same jobs enqueued first with the scheduler stopped; timed from `scheduler.start()` until no job is unfinished (admission, runs and completion only).',
        `Drain with full answers: the drain again on a fresh database, every request \`!bytes ${FULL_ANSWER_BYTES}\` (each member answers ${FULL_ANSWER_BYTES.toLocaleString('en-US')} bytes), so each team's newest records fill its shared context and every frozen turn carries about 23 KB of it (at most 24,000 bytes; an answer is at most 6,000), as in a team whose agents write full answers. The other rows' answers are about 20 bytes and their frozen turns about 3.4 KB.`,
        `"Result" counts only jobs that ended COMPLETED (x/y shows completed of sent). Commit profile: a separate live run of ${shape.profileJobs} jobs on a connection with the same pragmas that counts, at execution time, every COMMIT (labelled by the tables its transaction wrote) and every write outside a transaction (an autocommit); besides the commits it counted ${counted.selectsPerJob.toFixed(1)} reads and ${counted.writesPerJob.toFixed(1)} write statements per job. The same connection times every better-sqlite3 call (\`performance.now()\` around \`run\`/\`all\`; a COMMIT's log writes and sync included, Kysely's building not), grouped by the statement's text with its lists of placeholders shortened; this connection prepares each statement anew (outside the timing), and the timing adds its own cost, so read the shares rather than the totals.`,
        '"CPU per job": user + system CPU time of the benchmark process (`process.cpuUsage`) over the timed window, divided by the jobs. better-sqlite3 is synchronous, so an fsync blocks the event loop without using CPU: wall time per job is roughly CPU per job plus commits per job × the time of one commit.',
      ],
      notes: [
        `Commits per job: ${counted.perJob.toFixed(2)} (goal ≤ 1.5: ${counted.perJob <= 1.5 ? 'met' : 'missed'}). A run's final write rides in the job write that records the run (decision 0221), so an instant turn's run row, its conversation, the acknowledgement and the completion are one write; a request to ${shape.size} members is one enqueue, one admission pass admits several jobs, and the writes that arrive in one turn of the event loop (turns ending together, an admission) share one transaction and its one COMMIT (decision 0224).`,
        `Reading the numbers: every commit costs one fsync (WAL, synchronous=FULL) and better-sqlite3 waits for it on the event loop, so the wall time per job is about CPU per job + commits per job × (1 / raw rate). With ${counted.perJob.toFixed(2)} commits per job, an engine with no CPU cost would reach ${(1 / counted.perJob).toFixed(2)} × the raw rate. With the measured drain CPU of ${ms(drain.cpuMs / drain.jobs)} per job the model predicts a ratio of ${modelRatio(drain.cpuMs / drain.jobs, counted.perJob, 300)} at 300 commits/s, ${modelRatio(drain.cpuMs / drain.jobs, counted.perJob, 1_000)} at 1,000 and ${modelRatio(drain.cpuMs / drain.jobs, counted.perJob, 3_000)} at 3,000: the goal of 0.25 holds only while fsync is slow, because the engine is CPU-bound (${counted.selectsPerJob.toFixed(0)} reads and ${counted.writesPerJob.toFixed(0)} write statements per job through Kysely) while the raw loop is not. The raw rate of this shared disk moves between a few hundred and a few thousand commits/s with the other processes' load, which moves the ratio with it.`,
      ],
      metrics: {
        // The samples around the live and drain runs, as before the run with full answers was added.
        rawCommitsPerSecond: (raw1.perSecond + raw2.perSecond + raw3.perSecond) / 3,
        fullJobsPerSecond: fullRate,
        fullRatio: fullRate / fullRaw,
        fullCompleted: full.completed,
        fullCpuMsPerJob: full.cpuMs / full.jobs,
        liveJobsPerSecond: liveRate,
        drainJobsPerSecond: drainRate,
        liveRatio: liveRate / liveRaw,
        drainRatio: drainRate / drainRaw,
        commitsPerJob: counted.perJob,
        liveCompleted: live.completed,
        drainCompleted: drain.completed,
        liveCpuMsPerJob: live.cpuMs / live.jobs,
        drainCpuMsPerJob: drain.cpuMs / drain.jobs,
      },
    };
  },
};
