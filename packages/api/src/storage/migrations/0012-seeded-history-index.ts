import { type Kysely, type Migration, sql } from 'kysely';

/**
 * An index for the seeded part of a conversation (decision 0165): a forked member's conversation
 * starts with the lead's completed turns, copied without a job (`conversation_messages.job_id IS
 * NULL`), and every model call of an `openai` member reads them. Without this partial index that
 * read walked every message of the conversation to find the few without a job, so each turn cost
 * more the longer the member had talked; with it, the read touches only the seeded rows.
 */
export function seededHistoryIndexMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createIndex('conversation_messages_seeded_idx')
        .on('conversation_messages')
        .columns(['conversation_id', 'seq'])
        .where(sql.ref('job_id'), 'is', null)
        .execute();
    },
  };
}
