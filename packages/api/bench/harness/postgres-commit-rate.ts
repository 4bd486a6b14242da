import pg from 'pg';

/**
 * Raw PostgreSQL commit rate: one connection, `BEGIN` + one small-row INSERT + `COMMIT` per
 * transaction (three round trips, the commit waiting for its WAL flush under the server's
 * `synchronous_commit`), like the raw SQLite loop of `raw-commit-rate.ts`. The ceiling of one
 * sequential writer on this server; the engine's pool runs several transactions at once.
 *
 * @returns commits per second over at most `maxCommits` transactions or `maxMs` of commits
 * (whichever ends first; at least 100), after `warmup` untimed ones.
 */
export async function rawPostgresCommitRate(
  url: string,
  limits: { readonly maxCommits: number; readonly maxMs: number },
  warmup = 50,
): Promise<{ readonly perSecond: number; readonly commits: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create table if not exists bench_rows (id bigserial primary key, payload text not null)');
    const one = async (i: number) => {
      await client.query('BEGIN');
      await client.query('insert into bench_rows (payload) values ($1)', [`row ${i}`]);
      await client.query('COMMIT');
    };
    for (let i = 0; i < warmup; i += 1) await one(i);
    const started = performance.now();
    let commits = 0;
    while (commits < limits.maxCommits && (commits < 100 || performance.now() - started < limits.maxMs)) {
      await one(commits);
      commits += 1;
    }
    return { perSecond: commits / ((performance.now() - started) / 1000), commits };
  } finally {
    await client.end();
  }
}
