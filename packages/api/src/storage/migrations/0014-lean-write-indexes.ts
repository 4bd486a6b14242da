import type { Kysely, Migration } from 'kysely';

/**
 * Drops `model_usage_team_id_idx` (team_id): a prefix of `model_usage_team_idx` (team_id,
 * created_at, migration 0010), which serves the same reads, while every model call wrote both
 * (decision 0231).
 *
 * @remarks `jobs_owner_phase_seq_idx` stays, though only the inbox reads it: its partial
 * replacement (`WHERE phase = 'WAITING_INPUT'`) made SQLite re-plan every statement that binds a
 * phase, at each run (decision 0231).
 */
export function leanWriteIndexesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      // `ifExists`: SQLite runs migrations outside a transaction; a crash before the migration's
      // record must not fail every later start.
      await db.schema.dropIndex('model_usage_team_id_idx').ifExists().execute();
    },
  };
}
