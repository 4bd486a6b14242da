import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

let pg: FreshPostgres;
beforeAll(async () => {
  pg = await createFreshPostgres('pg_prepared');
  const setup = await openDatabase(pg.url, { postgresPrepared: false });
  await sql`create table t (id integer primary key, v text)`.execute(setup.db);
  await sql`insert into t values (1, 'a'), (2, 'b')`.execute(setup.db);
  await sql`create table u (id integer primary key)`.execute(setup.db);
  await sql`insert into u values (1)`.execute(setup.db);
  await setup.close();
});
afterAll(() => pg.drop());

/** The statements prepared on the connection this query runs on (pool of one: the same one). */
async function preparedTexts(db: Awaited<ReturnType<typeof openDatabase>>['db']): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((row) => row.statement);
}

describe('PostgreSQL statements prepared once per connection', () => {
  it('prepares each parameterized text once and runs it again by name', async () => {
    const opened = await openDatabase(pg.url, { poolSize: 1 });
    try {
      const read = (id: number) => sql<{ v: string }>`select v from t where id = ${id}`.execute(opened.db);
      expect((await read(1)).rows).toEqual([{ v: 'a' }]);
      expect((await read(2)).rows).toEqual([{ v: 'b' }]);
      const texts = await preparedTexts(opened.db);
      expect(texts.filter((text) => text.includes('select v from t where id = $1'))).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });

  it('prepares a data statement without parameters too, never a text of several statements', async () => {
    const opened = await openDatabase(pg.url, { poolSize: 1 });
    try {
      // Every value a literal (as the phases of decision 0235): still parsed and planned once.
      const read = () => sql<{ v: string }>`select v from t where v = 'a'`.execute(opened.db);
      expect((await read()).rows).toEqual([{ v: 'a' }]);
      expect((await read()).rows).toEqual([{ v: 'a' }]);
      await sql`select 1 as one; select 2 as two`.execute(opened.db);
      await sql`begin; commit`.execute(opened.db);
      const texts = await preparedTexts(opened.db);
      expect(texts.filter((text) => text.includes("select v from t where v = 'a'"))).toHaveLength(1);
      expect(texts.filter((text) => text.includes('select 1 as one') || text.includes('begin'))).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('prepares nothing when turned off', async () => {
    const opened = await openDatabase(pg.url, { poolSize: 1, postgresPrepared: false });
    try {
      await sql`select v from t where id = ${1}`.execute(opened.db);
      await sql`select v from t where id = ${2}`.execute(opened.db);
      expect(await preparedTexts(opened.db)).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('prepares anew after another server changed the table under a SELECT * (outside and inside a transaction)', async () => {
    const opened = await openDatabase(pg.url, { poolSize: 1 });
    const other = await openDatabase(pg.url, { postgresPrepared: false });
    try {
      const star = () => sql<Record<string, unknown>>`select * from t where id = ${1}`.execute(opened.db);
      expect(Object.keys((await star()).rows[0] ?? {})).toEqual(['id', 'v']);
      await sql`alter table t add column w text`.execute(other.db);
      // Outside a transaction: the stale statement is refused by PostgreSQL and run again at once.
      expect(Object.keys((await star()).rows[0] ?? {})).toEqual(['id', 'v', 'w']);
      await sql`select * from u where id = ${1}`.execute(opened.db);
      await sql`alter table t add column x text`.execute(other.db);
      await sql`alter table u add column y text`.execute(other.db);
      // Inside one: the transaction fails once and the store's retry runs it with new statements,
      // every one of the connection renamed at once (two stale tables cost one attempt, not two).
      let attempts = 0;
      const columns = await runWrite(
        { db: opened.db, dialect: 'postgres', sink: null, ids: null },
        new Date().toISOString(),
        async (scope) => {
          attempts += 1;
          const { rows } = await sql<Record<string, unknown>>`select * from t where id = ${1}`.execute(scope.trx);
          const more = await sql<Record<string, unknown>>`select * from u where id = ${1}`.execute(scope.trx);
          return [...Object.keys(rows[0] ?? {}), ...Object.keys(more.rows[0] ?? {})];
        },
      );
      expect(columns).toEqual(['id', 'v', 'w', 'x', 'id', 'y']);
      expect(attempts).toBe(2);
    } finally {
      await sql`alter table t drop column if exists w, drop column if exists x`.execute(other.db);
      await sql`alter table u drop column if exists y`.execute(other.db);
      await opened.close();
      await other.close();
    }
  });
});
