import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Phases that own their conversation, spelled out (a migration must not follow later code):
 * the active ones, WAITING_INPUT, and ANSWERED (an answer waiting for a slot).
 */
const OWNING_PHASES = ['ADMITTING', 'RUNNING', 'RESUMING', 'CANCELLING', 'WAITING_INPUT', 'ANSWERED'];

/**
 * `job_responses`: the answer keys used on each job (`respond` is idempotent by `(job_id,
 * client_request_id)`), with the hash of the answer they carried, so a retry after the job moved
 * on is recognised and a reused key with other content is refused. Removed with the team.
 * Plain text columns read the same in SQLite and PostgreSQL.
 */
export function jobResponsesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('job_responses')
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('client_request_id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('job_responses_pkey', ['job_id', 'client_request_id'])
        .execute();
      await db.schema.createIndex('job_responses_team_idx').on('job_responses').column('team_id').execute();
      await db.schema.dropIndex('jobs_one_admitted_per_conversation').execute();
      await db.schema
        .createIndex('jobs_one_admitted_per_conversation')
        .on('jobs')
        .unique()
        .column('conversation_id')
        .where(sql.ref('phase'), 'in', OWNING_PHASES)
        .execute();
    },
  };
}
