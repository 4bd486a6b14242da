import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli } from '../scripts/server-bundles.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { openDatabase } from '../src/storage/open-database.js';
import { API_DIR, REPO_DIR } from './harness/bench-paths.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchScale } from './harness/benchmark.js';
import { processCpuMs } from './harness/postgres-cpu.js';
import { ms, summarize } from './harness/stats.js';
import { seedFinished } from './planning/seed.js';

const repo = REPO_DIR;

/** Starts per database, and the history of the large one (teams × finished jobs per team). */
const SHAPES: Record<BenchScale, { starts: number; teams: number; finishedPerTeam: number }> = {
  full: { starts: 7, teams: 40, finishedPerTeam: 2_000 },
  tiny: { starts: 1, teams: 2, finishedPerTeam: 10 },
};

/** The goal of issue 17: listening within a second of `agent-teams serve` starting. */
export const START_GOAL_MS = 1_000;

/**
 * Milliseconds from spawning `node <bin> serve` (the built, bundled CLI, no loader) until it
 * prints its `listening on` line; then stops it (SIGTERM) and waits for its exit.
 */
async function timeStart(bin: string, database: string): Promise<{ wallMs: number; cpuMs: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--database', database], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AGENT_TEAMS_DEV_TOKEN: 'bench-token' },
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<{ wallMs: number; cpuMs: number | null }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on'))
        resolve({
          wallMs: performance.now() - started,
          cpuMs: child.pid === undefined ? null : processCpuMs(child.pid),
        });
    });
    child.once('exit', (code) => reject(new Error(`agent-teams exited with ${code} before listening:\n${output}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return listening;
}

/** A migrated database file holding `teams` × `perTeam` finished jobs and nothing unfinished. */
async function historyDatabase(file: string, teams: number, perTeam: number): Promise<number> {
  const stack = await openBenchStack(await openDatabase(file));
  try {
    // Ten teams per owner, within the per-owner team limit.
    for (let made = 0; made < teams; made += 10)
      await stack.teams(benchOwner(made / 10), Math.min(10, teams - made), 2);
    const db = stack.database.db;
    await db.transaction().execute((trx) => seedFinished(trx, perTeam));
    const row = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await stack.close();
  }
}

/** Start-up of the installed CLI: a new file, an empty database, a long history. */
export const coldStart: Benchmark = {
  name: 'cold-start',
  title: 'Start-up of the built CLI',
  async run(ctx) {
    const shape = SHAPES[ctx.scale];
    ctx.log('building the packages and the CLI bundle…');
    execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: repo, stdio: 'inherit' });
    const bin = await bundleCli(API_DIR);
    const empty = join(ctx.dir, 'empty.sqlite');
    const migrated = await openDatabase(empty);
    await migrateToLatest(migrated.db, migrated.dialect);
    await migrated.close();
    const history = join(ctx.dir, 'history.sqlite');
    ctx.log(`seeding ${shape.teams * shape.finishedPerTeam} finished jobs…`);
    const jobs = await historyDatabase(history, shape.teams, shape.finishedPerTeam);
    const series: [string, { wallMs: number; cpuMs: number | null }[]][] = [
      ['new file (migrations run)', []],
      ['empty database', []],
      [`${jobs.toLocaleString('en-US')} finished jobs`, []],
    ];
    for (let i = 0; i < shape.starts; i += 1) {
      const fresh = join(ctx.dir, `fresh-${i}.sqlite`);
      series[0]?.[1].push(await timeStart(bin, fresh));
      // Each start of the empty database gets its own copy, so no run sees another's writes.
      copyFileSync(empty, join(ctx.dir, `empty-${i}.sqlite`));
      series[1]?.[1].push(await timeStart(bin, join(ctx.dir, `empty-${i}.sqlite`)));
      series[2]?.[1].push(await timeStart(bin, history));
    }
    const cpuOf = (samples: { cpuMs: number | null }[]) => samples.map((s) => s.cpuMs ?? Number.NaN);
    const rows = series.map(([label, samples]) => {
      const wall = summarize(samples.map((s) => s.wallMs));
      const cpu = summarize(cpuOf(samples));
      const verdict = wall.max <= START_GOAL_MS ? 'yes' : cpu.max <= START_GOAL_MS ? 'CPU yes, wall no (load)' : 'no';
      return [label, String(wall.count), ms(wall.p50), ms(wall.max), ms(cpu.p50), ms(cpu.max), verdict];
    });
    const metrics = Object.fromEntries(
      series.flatMap(([, samples], i) => {
        const key = ['fresh', 'empty', 'history'][i];
        return [
          [`${key}WallP50Ms`, summarize(samples.map((s) => s.wallMs)).p50],
          [`${key}CpuP50Ms`, summarize(cpuOf(samples)).p50],
        ] as const;
      }),
    );
    ctx.log(`listening after (p50): ${rows.map((r) => `${r[0]} ${r[2]}`).join(', ')}`);
    return {
      tables: [
        {
          header: ['database', 'starts', 'wall p50', 'wall max', 'CPU p50', 'CPU max', `within ${START_GOAL_MS} ms`],
          rows,
        },
      ],
      method: [
        '`node packages/api/bin/agent-teams.js serve --port 0 --database <file>` as a child process: the built CLI bundle (`pnpm build`), no TypeScript loader; timed from spawn to its `listening on` line, then stopped with SIGTERM.',
        `${shape.starts} starts per database, alternating. "New file": the file does not exist, so the start creates and migrates it. "Empty": migrated, no teams. History: ${shape.teams} teams with ${shape.finishedPerTeam.toLocaleString('en-US')} COMPLETED jobs each (one \`INSERT … SELECT\`, as the planning benchmark seeds them), nothing unfinished.`,
        'Wall time is what a user waits; CPU time (user + system of the server process until that line, from `/proc/<pid>/stat`) is what the start costs, and does not grow when other processes share the cores: on a machine with a load average above its core count, wall time is mostly waiting for a core.',
        'The figures include Node starting, loading the bundle, opening and checking the database, the scheduler’s first pass (lease, admission over the unfinished jobs only) and binding the port.',
      ],
      metrics,
    };
  },
};
