import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminal } from '@agent-teams/core';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { percentile, waitUntil } from './harness/stats.js';

const SIZES = { full: { jobs: 60, warmup: 30 }, tiny: { jobs: 4, warmup: 2 } } as const;

/** The WAL file's header, and each frame's header before its page (SQLite's file format, §4). */
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** What page 1 holds besides its B-tree, and what a page no B-tree holds at the end is shown as. */
const PAGE_ONE = 'page 1 (`sqlite_schema`, the file header)';
const NO_TREE = 'a page no B-tree holds now';

/** One COMMIT's frames, each named by the B-tree its page belongs to. */
type CommitFrames = readonly string[];

/**
 * The log's committed frames, grouped by COMMIT (a frame whose "database size after commit" field
 * is set ends one), each page named by its B-tree in `dbstat`. Frames of another log generation
 * (salts unlike the header's) end the walk.
 */
export function framesByCommit(wal: Buffer, owners: ReadonlyMap<number, string>): CommitFrames[] {
  if (wal.length < WAL_HEADER_BYTES) return [];
  const pageSize = wal.readUInt32BE(8);
  const salts = wal.subarray(16, 24);
  const commits: CommitFrames[] = [];
  let current: string[] = [];
  for (
    let at = WAL_HEADER_BYTES;
    at + FRAME_HEADER_BYTES + pageSize <= wal.length;
    at += FRAME_HEADER_BYTES + pageSize
  ) {
    if (!wal.subarray(at + 8, at + 16).equals(salts)) break;
    const page = wal.readUInt32BE(at);
    current.push(page === 1 ? PAGE_ONE : (owners.get(page) ?? NO_TREE));
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits.push(current);
      current = [];
    }
  }
  return commits;
}

/**
 * Log frames per job: what a sequential job's COMMITs write to SQLite's log, B-tree by B-tree. A
 * COMMIT with `synchronous=FULL` costs more the more frames it writes (decision 0231), so this is
 * the count that says which index or table a job's commits pay for.
 */
export const logFrames: Benchmark = {
  name: 'log-frames',
  title: 'Log frames per job, by B-tree (SQLite, sequential jobs)',
  async run(ctx): Promise<BenchReport> {
    const { jobs, warmup } = SIZES[ctx.scale];
    const file = join(ctx.dir, 'log-frames.sqlite');
    // SQLite's own checkpoints, turned off below: the log then keeps every frame of the run.
    const database = await openDatabase(file, { sqliteCheckpoints: 'inline' });
    await sql`PRAGMA wal_autocheckpoint = 0`.execute(database.db);
    const stack = await openBenchStack(database);
    let commits: CommitFrames[] = [];
    try {
      await stack.scheduler.start();
      const teams = await stack.teams(benchOwner(0), 4, 2);
      let sent = 0;
      const one = async () => {
        const target = teams[sent % teams.length] as (typeof teams)[number];
        const member = target.members[Math.floor(sent / teams.length) % target.members.length];
        if (member === undefined) throw new Error('[agent-teams/bench] team without members');
        sent += 1;
        const [job] = await stack.core.requests.send(benchOwner(0), {
          teamId: target.team.id,
          memberIds: [member.id],
          text: `Job ${sent}`,
          clientRequestId: `frames-${sent}`,
        });
        if (job === undefined) throw new Error('[agent-teams/bench] send returned no job');
        await waitUntil(
          async () => {
            const [current] = await stack.store.findJobs([job.id]);
            return current !== undefined && isTerminal(current.phase) ? true : undefined;
          },
          `job ${job.id} finished`,
          10_000,
          1,
        );
      };
      for (let i = 0; i < warmup; i += 1) await one();
      // Every job is finished: the log starts empty for the counted ones.
      const [truncated] = (await sql<{ busy: number }>`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db)).rows;
      if (truncated?.busy !== 0) throw new Error('[agent-teams/bench] the log could not be truncated');
      for (let i = 0; i < jobs; i += 1) await one();
      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        const owners = new Map<number, string>();
        for (const row of reader.prepare('select name, pageno from dbstat').all() as {
          name: string;
          pageno: number;
        }[]) {
          owners.set(row.pageno, row.name);
        }
        commits = framesByCommit(readFileSync(`${file}-wal`), owners);
      } finally {
        reader.close();
      }
    } finally {
      await stack.close();
    }
    const byTree = new Map<string, number>();
    for (const commit of commits) for (const tree of commit) byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
    const frames = commits.reduce((sum, commit) => sum + commit.length, 0);
    const sizes = commits.map((commit) => commit.length).sort((a, b) => a - b);
    const perJob = (n: number) => (n / Math.max(1, jobs)).toFixed(2);
    const rows = [...byTree].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return {
      tables: [
        {
          header: ['B-tree', 'Frames per job', 'Share'],
          rows: [
            ...rows.map(([tree, n]) => [
              tree === PAGE_ONE || tree === NO_TREE ? tree : `\`${tree}\``,
              perJob(n),
              `${((n / Math.max(1, frames)) * 100).toFixed(1)} %`,
            ]),
            ['**all frames**', perJob(frames), '100.0 %'],
          ],
        },
      ],
      method: [
        `${jobs} sequential jobs counted after ${warmup} uncounted ones, one owner, 4 teams of 2 members, the engine's stack (\`openBenchStack\`: scripted runtime, the scheduler), on a SQLite file (WAL, \`synchronous=FULL\`) whose checkpoints are off for the run (\`wal_autocheckpoint = 0\`, no checkpoint worker) after a \`TRUNCATE\` checkpoint, so the log holds every frame the counted jobs wrote.`,
        'Each frame of the log is read from its header (page number; a set "database size after commit" ends a COMMIT) and named by the B-tree that holds its page at the end of the run (`dbstat`, read-only connection). Page 1 is the schema table and the file header SQLite rewrites when the file grows.',
        "A job waits for the previous one to finish, so every COMMIT is one write of one job: its enqueue with its admission, then its completion (decisions 0221, 0223); the scheduler's timed passes (its lease) may add a COMMIT of their own.",
      ],
      notes: [
        `${perJob(frames)} frames per job over ${commits.length} COMMITs (${(commits.length / Math.max(1, jobs)).toFixed(2)} per job); frames per COMMIT: min ${sizes[0] ?? 0}, median ${percentile(sizes, 50)}, max ${sizes.at(-1) ?? 0}.`,
      ],
      metrics: { jobs, commits: commits.length, framesPerJob: frames / Math.max(1, jobs), trees: byTree.size },
    };
  },
};
