import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Replaces `jobs_owner_phase_seq_idx` (owner, phase, seq) with `jobs_waiting_input_idx` (owner,
 * seq) `WHERE phase = 'WAITING_INPUT'` (decision 0235).
 *
 * @remarks Only the inbox reads it (an owner's jobs waiting for a person), yet every phase change
 * of every job moved its entry in the full index: 2.2 log frames per job of an engine drain
 * (docs/benchmarks.md, twenty-second pass). The partial one changes only when a job starts or
 * stops waiting for a person. Every statement now writes the phases it compares into its text
 * (`literal-phase.ts`): with the phase bound, SQLite re-planned at each run against this WHERE,
 * which is why decision 0231 had kept the full index.
 */
export function waitingInputIndexMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      // The new one first, each step safe to run again: SQLite runs migrations outside a
      // transaction, and a crash between them must leave the inbox an index.
      await db.schema
        .createIndex('jobs_waiting_input_idx')
        .ifNotExists()
        .on('jobs')
        .columns(['owner', 'seq'])
        .where(sql.ref('phase'), '=', sql.lit('WAITING_INPUT'))
        .execute();
      await db.schema.dropIndex('jobs_owner_phase_seq_idx').ifExists().execute();
    },
  };
}
