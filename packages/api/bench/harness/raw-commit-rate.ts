import BetterSqlite3 from 'better-sqlite3';
import { summarize } from './stats.js';

/**
 * The raw single-row commit rate of SQLite with the server's settings: WAL, synchronous=FULL,
 * `BEGIN IMMEDIATE`, one small row inserted per transaction, prepared statements through
 * better-sqlite3 (no Kysely, no async). The ceiling any engine on this disk can reach per commit.
 *
 * @returns commits per second over at most `maxCommits` transactions or `maxMs` of commits
 * (whichever ends first; at least 100), after `warmup` untimed ones.
 */
export function rawCommitRate(
  file: string,
  limits: { readonly maxCommits: number; readonly maxMs: number },
  warmup = 50,
): { readonly perSecond: number; readonly commits: number } {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('create table if not exists bench_rows (id integer primary key, payload text not null)');
    const begin = db.prepare('BEGIN IMMEDIATE');
    const insert = db.prepare('insert into bench_rows (payload) values (?)');
    const commit = db.prepare('COMMIT');
    const one = (i: number) => {
      begin.run();
      insert.run(`row ${i}`);
      commit.run();
    };
    for (let i = 0; i < warmup; i += 1) one(i);
    const started = performance.now();
    let commits = 0;
    while (commits < limits.maxCommits && (commits < 100 || performance.now() - started < limits.maxMs)) {
      one(commits);
      commits += 1;
    }
    return { perSecond: commits / ((performance.now() - started) / 1000), commits };
  } finally {
    db.close();
  }
}

/** A commit's time after the disk and the thread sat idle for a while (see {@link commitsAfterPause}). */
export interface CommitAfterPause {
  /** Milliseconds the thread slept before each commit. */
  readonly pauseMs: number;
  /** Tables written by each transaction, one row each: 1, or about as many log frames as a turn's COMMIT. */
  readonly tables: number;
  /** Median and 90th percentile of the COMMIT alone, in milliseconds. */
  readonly p50Ms: number;
  readonly p90Ms: number;
}

/**
 * Times COMMIT (WAL, synchronous=FULL) after the thread slept `pauses` milliseconds, for
 * transactions writing one row into 1 table and into `frames` tables (each a page of its own, so
 * about `frames` log frames, as a turn's COMMIT writes). The cells take turns, commit by commit,
 * so a drift of the shared disk hits them alike.
 *
 * @remarks Why: the raw rate commits back to back, but a turn's two COMMITs each follow a wait on
 * the network. `Atomics.wait` sleeps the thread as the event loop does while it waits (no spin).
 */
export function commitsAfterPause(
  file: string,
  options: { readonly pauses: readonly number[]; readonly frames: number; readonly samples: number },
): CommitAfterPause[] {
  const db = new BetterSqlite3(file);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    const tables = Array.from({ length: options.frames }, (_, i) => `pause_rows_${i}`);
    for (const table of tables) db.exec(`create table if not exists ${table} (id integer primary key, payload text)`);
    const inserts = tables.map((table) => db.prepare(`insert into ${table} (payload) values (?)`));
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const cells = options.pauses.flatMap((pauseMs) =>
      [1, options.frames].map((count) => ({ pauseMs, tables: count, times: [] as number[] })),
    );
    for (let i = 0; i < options.samples + 5; i += 1) {
      for (const cell of cells) {
        if (cell.pauseMs > 0) Atomics.wait(sleeper, 0, 0, cell.pauseMs);
        begin.run();
        for (const insert of inserts.slice(0, cell.tables)) insert.run(`row ${i}`);
        const started = performance.now();
        commit.run();
        // The first 5 rounds warm the file and the statements up; they are not kept.
        if (i >= 5) cell.times.push(performance.now() - started);
      }
    }
    return cells.map(({ pauseMs, tables: count, times }) => {
      const { p50, p90 } = summarize(times);
      return { pauseMs, tables: count, p50Ms: p50, p90Ms: p90 };
    });
  } finally {
    db.close();
  }
}
