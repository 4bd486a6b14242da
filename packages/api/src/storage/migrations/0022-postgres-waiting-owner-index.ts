import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';
import { createWaitingOwnerIndex } from './waiting-owner-index.js';

/**
 * `jobs_waiting_owner_seq_idx` on PostgreSQL too: `jobs (owner, seq) WHERE unfinished = 1 AND phase
 * IN ('ANSWERED', 'QUEUED')`, the jobs waiting for a slot by owner in queue order, which
 * PostgreSQL's admission now walks for each owner's oldest conversation heads (decision 0260), as
 * SQLite's has since migration 0021.
 *
 * @remarks A job enters it when queued (or answered) and leaves it when admitted, so it holds only
 * the backlog. Building it reads the `jobs` table once and holds writes to it meanwhile (a plain
 * `CREATE INDEX`, inside the migration's transaction); on a history of millions of jobs that is
 * seconds, once. `IF NOT EXISTS`: safe where an operator created it ahead (an invalid one, from a
 * concurrent build that failed, is dropped and built again).
 */
export function postgresWaitingOwnerIndexMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'postgres') return;
      // One an operator began ahead with `CREATE INDEX CONCURRENTLY` that failed is left invalid:
      // never used, never kept by `IF NOT EXISTS`. Built again.
      const invalid = await sql<{ name: string }>`select c.relname as name from pg_index as i
        join pg_class as c on c.oid = i.indexrelid
        where c.relname = 'jobs_waiting_owner_seq_idx' and c.relnamespace = current_schema()::regnamespace
          and not i.indisvalid`.execute(db);
      if (invalid.rows.length > 0) await db.schema.dropIndex('jobs_waiting_owner_seq_idx').execute();
      await createWaitingOwnerIndex(db);
    },
  };
}
