import { foldSearchText } from '@agent-teams/core';
import type { Kysely, Migration } from 'kysely';

/**
 * Peer collaboration: folded copies of every searchable text (the member read tools' literal,
 * case-insensitive `query`), and the hashes of member-run tokens.
 *
 * @remarks The folded columns are written by the store with the core's `foldSearchText`, the same
 * function that folds the query, so SQLite and PostgreSQL match every script the same way (their
 * own `lower()` differ beyond ASCII). Existing rows are backfilled here in JavaScript for that
 * reason. `member_run_tokens` keeps only a SHA-256 hash of each token; a token is valid while its
 * job is unfinished, which is checked at use, so rows need no expiry; they go with the team.
 */
export function collaborationMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('record_messages').addColumn('text_folded', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('text_folded', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('result_folded', 'text').execute();
      const records = await db.selectFrom('record_messages').select(['id', 'text']).execute();
      for (const row of records) {
        await db
          .updateTable('record_messages')
          .set({ text_folded: foldSearchText(String(row.text)) })
          .where('id', '=', row.id)
          .execute();
      }
      const jobs = await db.selectFrom('jobs').select(['id', 'text', 'result_text']).execute();
      for (const row of jobs) {
        await db
          .updateTable('jobs')
          .set({
            text_folded: foldSearchText(String(row.text)),
            result_folded: row.result_text === null ? null : foldSearchText(String(row.result_text)),
          })
          .where('id', '=', row.id)
          .execute();
      }
      await db.schema
        .createTable('member_run_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('member_run_tokens_job_idx').on('member_run_tokens').column('job_id').execute();
    },
  };
}
