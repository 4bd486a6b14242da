import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Two indexes every turn wrote and almost nothing read (decision 0231).
 *
 * - `jobs_owner_phase_seq_idx` (owner, phase, seq) over every job served only the inbox (an
 *   owner's jobs WAITING_INPUT), yet each phase change of every job moved its entry: two index
 *   pages per turn in the log. Its place takes `jobs_waiting_owner_seq_idx` (owner, seq) over the
 *   jobs waiting for a person only, which a turn that never waits does not touch. The inbox names
 *   the phase as a literal (`waitingJobs`), so every plan of it, PostgreSQL's generic ones too,
 *   can use the index.
 * - `model_usage_team_id_idx` (team_id) is a prefix of `model_usage_team_idx` (team_id,
 *   created_at, migration 0010), which serves the same reads; every model call wrote both.
 */
// `ifNotExists` and `ifExists`: SQLite runs migrations outside a transaction, so a crash between
// these statements and the migration's record must not fail every later start.
export function leanWriteIndexesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('jobs_waiting_owner_seq_idx')
        .ifNotExists()
        .on('jobs')
        .columns(['owner', 'seq'])
        .where(sql.ref('phase'), '=', 'WAITING_INPUT')
        .execute();
      await db.schema.dropIndex('jobs_owner_phase_seq_idx').ifExists().execute();
      await db.schema.dropIndex('model_usage_team_id_idx').ifExists().execute();
    },
  };
}
