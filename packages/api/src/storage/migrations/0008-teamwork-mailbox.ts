import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * The team mailbox, as data:
 *
 * - `team_messages`: one row per message, numbered by `seq` (database-wide, the delivery order),
 *   unique per (team, sender, key) so a retried send finds its message (`sender_key` is the
 *   sending member's id, or '' for the owner). `recipients_json` keeps the sender's order.
 * - `team_message_deliveries`: one row per (message, recipient): `job_id` is NULL while the copy
 *   is undelivered, then the job whose turn received it (set in the admission transaction that
 *   froze that turn). The partial index answers "this member's undelivered messages, in order".
 * - `team_events.message_id`: the message a MESSAGE_SENT or MESSAGE_DELIVERED event names.
 *
 * Both tables go with their team (ON DELETE CASCADE), like jobs and records.
 */
export function teamworkMailboxMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      const messages = db.schema.createTable('team_messages');
      await (dialect === 'sqlite'
        ? messages.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
        : messages.addColumn('seq', 'bigserial', (c) => c.primaryKey())
      )
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('from_member_id', 'text')
        .addColumn('sender_key', 'text', (c) => c.notNull())
        .addColumn('client_key', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('delivery', 'text', (c) => c.notNull())
        .addColumn('recipients_json', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('team_messages_sender_key', ['team_id', 'sender_key', 'client_key'])
        .execute();
      await db.schema
        .createTable('team_message_deliveries')
        .addColumn('message_id', 'text', (c) => c.notNull().references('team_messages.id').onDelete('cascade'))
        .addColumn('member_id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('message_seq', 'bigint', (c) => c.notNull())
        .addColumn('job_id', 'text')
        .addColumn('delivered_at', 'text')
        .addPrimaryKeyConstraint('team_message_deliveries_pkey', ['message_id', 'member_id'])
        .execute();
      await db.schema
        .createIndex('team_message_deliveries_undelivered_idx')
        .on('team_message_deliveries')
        .columns(['member_id', 'message_seq'])
        .where(sql.ref('job_id'), 'is', null)
        .execute();
      await db.schema.alterTable('team_events').addColumn('message_id', 'text').execute();
    },
  };
}
