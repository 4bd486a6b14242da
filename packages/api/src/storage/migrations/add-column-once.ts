import { type Kysely, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * Adds a nullable `text` column without a default (no table is rewritten), unless the table has
 * it already: SQLite runs migrations outside a transaction, so a crash between the column's
 * addition and the migration's record must not make the next start fail on a column that exists.
 */
export async function addTextColumnOnce(
  // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
  db: Kysely<any>,
  dialect: DatabaseDialect,
  table: string,
  column: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} add column if not exists ${sql.ref(column)} text`.execute(db);
    return;
  }
  const columns = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  if (columns.rows.some((row) => row.name === column)) return;
  await db.schema.alterTable(table).addColumn(column, 'text').execute();
}
