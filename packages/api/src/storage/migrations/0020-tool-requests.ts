import type { Kysely, Migration } from 'kysely';

/**
 * `tool_requests`: the idempotency keys of member tool calls whose effect a retry cannot recognise
 * by itself (`team_interrupt`, and the task writes, whose `expected_revision` the first call's own
 * change made stale), each with the hash of the call and the id it answered with (the task
 * written, the job interrupted; NULL when the member had no turn). Written in the transaction of
 * the call's effect, so the `openai` runtime's replay of a call after a crash finds it and answers
 * the first call's outcome. Keys are `tool:<memberId>:<request_id>`, one space per member; rows go
 * with their team. At most one row per keyed call, and a team's calls are bounded by its requests.
 *
 * @remarks One statement (the primary key is part of the table), so a start killed mid-migration
 * on SQLite (which runs migrations outside a transaction) either made the table or did not; `if
 * not exists` lets the next start record the migration either way.
 */
export function toolRequestsMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('tool_requests')
        .ifNotExists()
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('request_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('answer_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tool_requests_pk', ['team_id', 'request_key'])
        .execute();
    },
  };
}
