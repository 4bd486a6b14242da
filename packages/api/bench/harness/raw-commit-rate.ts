import BetterSqlite3 from 'better-sqlite3';

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
