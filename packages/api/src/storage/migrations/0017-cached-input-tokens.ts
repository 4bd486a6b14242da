import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * `model_usage.cached_input_tokens`: of a call's input tokens, those the provider read from its
 * prompt cache (decision 0243). Rows recorded before it read 0, which is what their providers'
 * reports said as far as this server kept them.
 *
 * @remarks Safe to run again: SQLite runs migrations outside a transaction, so a crash between
 * the column's addition and the migration's record must not make the next start fail on a
 * column that exists already.
 */
export function cachedInputTokensMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`alter table model_usage add column if not exists cached_input_tokens integer not null default 0`.execute(
          db,
        );
        return;
      }
      const columns = await sql<{ name: string }>`select name from pragma_table_info('model_usage')`.execute(db);
      if (columns.rows.some((column) => column.name === 'cached_input_tokens')) return;
      await db.schema
        .alterTable('model_usage')
        .addColumn('cached_input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
