import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Indexes for reads that scanned a table growing with the history (decision 0247):
 *
 * - `jobs_finished_conversation_idx` (conversation_id, updated_at, seq) `WHERE unfinished = 0`: a
 *   member's status names how its last finished job ended, and finding that job scanned every job
 *   of the database, once per member status read (80 ms for a team's members on a database of
 *   80,000 finished jobs). With it, each conversation's last finished job is one seek.
 * - `team_message_deliveries_team_idx` and `member_run_tokens_team_idx` (team_id): deleting a team
 *   cascades to both by `team_id`, which no index led with, so each deletion scanned every team's
 *   deliveries and every member run's token (never deleted otherwise) while holding the write lock.
 *
 * @remarks Safe to run again (SQLite runs migrations outside a transaction).
 */
export function historyIndexesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('jobs_finished_conversation_idx')
        .ifNotExists()
        .on('jobs')
        .columns(['conversation_id', 'updated_at', 'seq'])
        .where(sql.ref('unfinished'), '=', sql.lit(0))
        .execute();
      await db.schema
        .createIndex('team_message_deliveries_team_idx')
        .ifNotExists()
        .on('team_message_deliveries')
        .column('team_id')
        .execute();
      await db.schema
        .createIndex('member_run_tokens_team_idx')
        .ifNotExists()
        .on('member_run_tokens')
        .column('team_id')
        .execute();
    },
  };
}
