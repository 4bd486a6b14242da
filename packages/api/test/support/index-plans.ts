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
