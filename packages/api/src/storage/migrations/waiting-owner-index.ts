import { type Kysely, sql } from 'kysely';

/**
 * Creates `jobs_waiting_owner_seq_idx` unless it exists: `jobs (owner, seq) WHERE unfinished = 1 AND
 * phase IN ('ANSWERED', 'QUEUED')`, the jobs waiting for a slot by owner in queue order. Shared by
 * migrations 0021 (SQLite) and 0022 (PostgreSQL), and frozen with them: the phases are literals in
 * the order `literalPhases` writes them (SQLite uses a partial index only for a statement whose
 * `WHERE` holds the index's own terms).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export async function createWaitingOwnerIndex(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('jobs_waiting_owner_seq_idx')
    .ifNotExists()
    .on('jobs')
    .columns(['owner', 'seq'])
    .where((eb) =>
      eb.and([eb(sql.ref('unfinished'), '=', 1), eb(sql.ref('phase'), 'in', [sql.lit('ANSWERED'), sql.lit('QUEUED')])]),
    )
    .execute();
}
