import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * `tasks.request_fingerprint`: the hash of the input of a `createTask` that carried a
 * `clientRequestId` (`createFingerprint` of the core). A retry under the same key is compared
 * with it rather than with the task's current fields, which an edit or a status change since the
 * creation made differ, so the retry was refused as IDEMPOTENCY_CONFLICT. NULL for tasks created
 * without a key, and for tasks created before this migration: their retries keep the old rule
 * (the current title and details). Nullable without a default, so no table is rewritten.
 *
 * @remarks Safe to run again: SQLite runs migrations outside a transaction, so a crash between
 * the column's addition and the migration's record must not make the next start fail on a
 * column that exists already.
 */
export function taskRequestFingerprintMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`alter table tasks add column if not exists request_fingerprint text`.execute(db);
        return;
      }
      const columns = await sql<{ name: string }>`select name from pragma_table_info('tasks')`.execute(db);
      if (columns.rows.some((column) => column.name === 'request_fingerprint')) return;
      await db.schema.alterTable('tasks').addColumn('request_fingerprint', 'text').execute();
    },
  };
}
