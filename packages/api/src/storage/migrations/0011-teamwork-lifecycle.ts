import type { Kysely, Migration } from 'kysely';

/**
 * The team lifecycle and durable waits (decision 0165):
 *
 * - `member_spawns`: the idempotency key of each spawn (team, client key) with the member it
 *   created and a fingerprint of its content; goes with its team.
 * - `jobs.wait_json`: the `wait_for_change` a WAITING_CHANGE job waits in (request id, after seq,
 *   deadline, timeout), NULL otherwise; `wait_after_seq` and `wait_deadline` repeat the two
 *   fields admission compares, so the wake-up test stays a plain column comparison.
 *
 * Numbered 0011: 0008–0010 belong to other lines of work; only the order counts.
 */
export function teamworkLifecycleMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('member_spawns')
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('client_key', 'text', (c) => c.notNull())
        .addColumn('member_id', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('member_spawns_pk', ['team_id', 'client_key'])
        .execute();
      await db.schema.alterTable('jobs').addColumn('wait_json', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('wait_after_seq', 'integer').execute();
      await db.schema.alterTable('jobs').addColumn('wait_deadline', 'text').execute();
    },
  };
}
