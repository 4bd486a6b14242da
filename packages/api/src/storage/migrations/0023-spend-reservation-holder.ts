import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * `spend_reservations.holder`: the execution of a job's turn that holds the reservation
 * (`SpendReservation.holder`). A job holds one reservation at a time under one id, which the call
 * a server sends again after a takeover replaces; a release then names its holder, so the server
 * that lost the job, when it wakes and releases, leaves the reservation of the server that took it
 * over. Rows from before it hold NULL: released only by a release that names no holder, or
 * ignored after an hour like any reservation of a server that died.
 *
 * @remarks Safe to run again: SQLite runs migrations outside a transaction, so a crash between
 * the column's addition and the migration's record must not make the next start fail on a
 * column that exists already.
 */
export function spendReservationHolderMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`alter table spend_reservations add column if not exists holder text`.execute(db);
        return;
      }
      const columns = await sql<{ name: string }>`select name from pragma_table_info('spend_reservations')`.execute(db);
      if (columns.rows.some((column) => column.name === 'holder')) return;
      await db.schema.alterTable('spend_reservations').addColumn('holder', 'text').execute();
    },
  };
}
