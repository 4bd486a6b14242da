import type { Kysely, Migration } from 'kysely';

/**
 * The shared task board (decision 0170):
 *
 * - `tasks`: one row per task. `seq` is the creation order within the team (1, 2, ...; the
 *   board's list order and cursor anchor), unique per team, so two racing creations cannot both
 *   take a place. `depends_on` and `write_scope` are JSON arrays of strings (at most 32 and 20,
 *   read and written whole). `revision` is the compare-and-set token of every write.
 *   `client_request_id` is unique per team when set (GraphQL `createTask` retries).
 * - `team_events.task_id` names the task of a TASK_CHANGED; `team_events.reason` says why the
 *   system changed it (a retired owner, a closed team).
 *
 * Tasks go with their team (ON DELETE CASCADE). Numbered 0009: 0008 belongs to another line of
 * work; Kysely applies migrations in name order.
 */
export function tasksMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('client_request_id', 'text')
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('details', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('depends_on', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text')
        .addColumn('write_scope', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('result', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tasks_team_seq').on('tasks').columns(['team_id', 'seq']).unique().execute();
      await db.schema
        .createIndex('tasks_team_client_request')
        .on('tasks')
        .columns(['team_id', 'client_request_id'])
        .unique()
        .execute();
      await db.schema.alterTable('team_events').addColumn('task_id', 'text').execute();
      await db.schema.alterTable('team_events').addColumn('reason', 'text').execute();
    },
  };
}
