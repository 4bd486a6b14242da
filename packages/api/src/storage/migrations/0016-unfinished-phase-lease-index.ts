import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Replaces `jobs_unfinished_phase_idx` (phase) and `jobs_unfinished_lease_idx` (lease_server), both
 * `WHERE unfinished = 1`, with one index on (phase, lease_server) `WHERE unfinished = 1`
 * (decision 0239).
 *
 * @remarks Every job's admission and end wrote both: each holds only unfinished jobs, so each
 * fits a page or two, and each commit that admits or ends a job wrote one log frame per index,
 * 2 of a sequential job's 40 frames (docs/benchmarks.md, twenty-fifth pass; a commit's sync grows
 * with its frames). The statements that read a server's leases name the phases too (the held
 * jobs, the claim) and search the pair; the release, once when a server stops, walks the
 * unfinished jobs in it; the phase reads use its first column as they used the phase index.
 */
export function unfinishedPhaseLeaseIndexMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      // The new one first, each step safe to run again: SQLite runs migrations outside a
      // transaction, and a crash between them must leave the scheduler an index.
      await db.schema
        .createIndex('jobs_unfinished_phase_lease_idx')
        .ifNotExists()
        .on('jobs')
        .columns(['phase', 'lease_server'])
        .where(sql.ref('unfinished'), '=', 1)
        .execute();
      await db.schema.dropIndex('jobs_unfinished_phase_idx').ifExists().execute();
      await db.schema.dropIndex('jobs_unfinished_lease_idx').ifExists().execute();
    },
  };
}
