import type { Kysely, Migration } from 'kysely';

/**
 * `a2a_contexts`: the A2A `contextId` of each member conversation run by a remote agent
 * (`runtime: "a2a"`), so every turn of the conversation reaches the remote side as one context,
 * also after a restart. Minted before the first message (the remote may replace it with its own,
 * which is then kept). Plain text columns read the same in SQLite and PostgreSQL.
 */
export function a2aContextsMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('a2a_contexts')
        .addColumn('conversation_id', 'text', (c) => c.primaryKey())
        .addColumn('context_id', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
