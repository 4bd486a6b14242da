import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';
import { createWaitingOwnerIndex } from './waiting-owner-index.js';

/**
 * `jobs_waiting_owner_seq_idx` on `jobs (owner, seq) WHERE unfinished = 1 AND phase IN ('ANSWERED',
 * 'QUEUED')`, on SQLite: the jobs waiting for a slot, by owner in queue order, which SQLite's
 * admission walks for each owner's oldest conversation heads (decision 0249).
 *
 * @remarks A job enters it when queued (or answered) and leaves it when admitted, so it holds only
 * the backlog, and it builds in moments whatever the history. PostgreSQL gets the same index from
 * migration 0022, when its admission began to walk by owner too (decision 0260). Safe to run
 * again (SQLite runs migrations outside a transaction). The phases are literals in the order `literalPhases` writes them: SQLite uses a partial index only
 * for a statement whose `WHERE` holds the index's own terms.
 */
export function waitingOwnerIndexMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await createWaitingOwnerIndex(db);
    },
  };
}
