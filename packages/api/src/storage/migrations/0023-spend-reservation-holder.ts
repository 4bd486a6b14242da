import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';
import { addTextColumnOnce } from './add-column-once.js';

/**
 * `spend_reservations.holder`: the execution of a job's turn that holds the reservation
 * (`SpendReservation.holder`). A job holds one reservation at a time under one id, which the call
 * a server sends again after a takeover replaces; a release then names its holder, so the server
 * that lost the job, when it wakes and releases, leaves the reservation of the server that took it
 * over. Rows from before it hold NULL: released only by a release that names no holder, or
 * ignored after an hour like any reservation of a server that died.
 * Safe to run again (`addTextColumnOnce`).
 */
export function spendReservationHolderMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await addTextColumnOnce(db, dialect, 'spend_reservations', 'holder');
    },
  };
}
