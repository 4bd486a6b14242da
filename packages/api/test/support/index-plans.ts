import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import type { DatabaseDialect } from '../../src/storage/open-database.js';

/** The database's index names in name order, of one table when `table` is given (migration tests). */
export async function indexNames(db: Kysely<Database>, dialect: DatabaseDialect, table?: string): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index'
          and (${table ?? null} is null or tbl_name = ${table ?? null}) order by name`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()
          and (${table ?? null}::text is null or tablename = ${table ?? null}) order by indexname`.execute(db);
  return rows.rows.map((row) => row.name);
}

/** SQLite's `EXPLAIN QUERY PLAN` of a statement, its steps joined by ` | `. */
export async function sqlitePlan(db: Kysely<Database>, statement: CompiledQuery): Promise<string> {
  const plan = await db.executeQuery(
    CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
  );
  return plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
}

/**
 * PostgreSQL's generic plan (parameters unknown, as a prepared statement gets after five runs) of
 * each statement `explain` is given, on one connection of `db` so the settings hold; sequential
 * scans off, so an almost empty table shows which index the planner can use at all. `explain`
 * prepares the statement as `name` and answers its plan's lines joined by ` | `.
 */
export async function postgresGenericPlans(
  db: Kysely<Database>,
  check: (explain: (name: string, statement: CompiledQuery) => Promise<string>) => Promise<void>,
): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
    await check(async (name, statement) => {
      await connection.executeQuery(CompiledQuery.raw(`prepare ${name} as ${statement.sql}`));
      const values = statement.parameters.map((value) => `'${String(value).replaceAll("'", "''")}'`).join(', ');
      const args = statement.parameters.length === 0 ? '' : `(${values})`;
      const plan = await connection.executeQuery(CompiledQuery.raw(`explain execute ${name}${args}`));
      return plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
    });
  });
}
