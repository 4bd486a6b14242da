import { ACTIVE_PHASES, JobPhase } from '@agent-teams/core';
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/** Phases that own their conversation: the database allows one such job per conversation. */
const CONVERSATION_OWNING_PHASES: readonly string[] = [...ACTIVE_PHASES, JobPhase.WAITING_INPUT];

type AnyTable = CreateTableBuilder<string, string>;
type ColumnSetup = (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** The one difference between the dialects here: how an auto-increment primary key is spelled. */
function withSeq(table: AnyTable, dialect: DatabaseDialect): AnyTable {
  return dialect === 'sqlite'
    ? table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('seq', 'bigserial', (c) => c.primaryKey());
}

const notNull: ColumnSetup = (c) => c.notNull();
const teamRef: ColumnSetup = (c) => c.notNull().references('teams.id').onDelete('cascade');

/**
 * The initial schema: teams, members, jobs, the shared record, the event log, conversations,
 * the scheduler's round state and the runtimes' runs. Timestamps are ISO-8601 text in both
 * dialects so rows map to the same values; booleans are integers 0/1 so the partial indexes
 * read the same (`unfinished = 1`).
 */
export function initialMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await withSeq(db.schema.createTable('teams'), dialect)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('owner', 'text', notNull)
        .addColumn('client_request_id', 'text', notNull)
        .addColumn('fingerprint', 'text', notNull)
        .addColumn('name', 'text', notNull)
        .addColumn('goal', 'text', notNull)
        .addColumn('status', 'text', notNull)
        .addColumn('revision', 'integer', notNull)
        .addColumn('last_event_seq', 'integer', notNull)
        .addColumn('created_at', 'text', notNull)
        .addColumn('updated_at', 'text', notNull)
        .addUniqueConstraint('teams_owner_client_request_id_key', ['owner', 'client_request_id'])
        .execute();
      await db.schema.createIndex('teams_owner_seq_idx').on('teams').columns(['owner', 'seq']).execute();

      await db.schema
        .createTable('members')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', teamRef)
        .addColumn('position', 'integer', notNull)
        .addColumn('name', 'text', notNull)
        .addColumn('agent_id', 'text', notNull)
        .addColumn('conversation_id', 'text', (c) => c.notNull().unique())
        .addUniqueConstraint('members_team_id_name_key', ['team_id', 'name'])
        .execute();

      await createJobs(db, dialect);

      await withSeq(db.schema.createTable('record_messages'), dialect)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('team_id', 'text', teamRef)
        .addColumn('kind', 'text', notNull)
        .addColumn('job_id', 'text')
        .addColumn('member_id', 'text')
        .addColumn('from_member_id', 'text')
        .addColumn('text', 'text', notNull)
        .addColumn('truncated', 'integer', notNull)
        .addColumn('created_at', 'text', notNull)
        .execute();
      await db.schema
        .createIndex('record_messages_team_seq_idx')
        .on('record_messages')
        .columns(['team_id', 'seq'])
        .execute();

      await db.schema
        .createTable('team_events')
        .addColumn('team_id', 'text', teamRef)
        .addColumn('seq', 'integer', notNull)
        .addColumn('kind', 'text', notNull)
        .addColumn('job_id', 'text')
        .addColumn('record_id', 'text')
        .addColumn('member_id', 'text')
        .addColumn('created_at', 'text', notNull)
        .addPrimaryKeyConstraint('team_events_pkey', ['team_id', 'seq'])
        .execute();

      await withSeq(db.schema.createTable('conversation_messages'), dialect)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('conversation_id', 'text', notNull)
        .addColumn('role', 'text', notNull)
        .addColumn('text', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('job_id', 'text')
        .addColumn('created_at', 'text', notNull)
        .execute();
      await db.schema
        .createIndex('conversation_messages_conversation_seq_idx')
        .on('conversation_messages')
        .columns(['conversation_id', 'seq'])
        .execute();

      await db.schema
        .createTable('scheduler_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('round_json', 'text', notNull)
        .addColumn('updated_at', 'text')
        .execute();
      // The single row exists from the start so PostgreSQL can lock it (`FOR UPDATE`) in `admit`.
      await db
        .insertInto('scheduler_state')
        .values({ id: 1, round_json: JSON.stringify({ rotation: [], served: [] }), updated_at: null })
        .execute();

      await db.schema
        .createTable('runtime_runs')
        .addColumn('run_key', 'text', (c) => c.primaryKey())
        .addColumn('run_id', 'text', (c) => c.notNull().unique())
        .addColumn('runtime', 'text', notNull)
        .addColumn('conversation_id', 'text', notNull)
        .addColumn('job_id', 'text')
        .addColumn('state', 'text', notNull)
        .addColumn('state_json', 'text')
        .addColumn('created_at', 'text', notNull)
        .addColumn('updated_at', 'text', notNull)
        .execute();
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: see `up`.
async function createJobs(db: Kysely<any>, dialect: DatabaseDialect): Promise<void> {
  await withSeq(db.schema.createTable('jobs'), dialect)
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('team_id', 'text', teamRef)
    .addColumn('owner', 'text', notNull)
    .addColumn('kind', 'text', notNull)
    .addColumn('phase', 'text', notNull)
    .addColumn('unfinished', 'integer', notNull)
    .addColumn('member_id', 'text')
    .addColumn('conversation_id', 'text', notNull)
    .addColumn('requester_member_id', 'text')
    .addColumn('requester_conversation_id', 'text')
    .addColumn('requester_key', 'text', notNull)
    .addColumn('parent_id', 'text')
    .addColumn('root_id', 'text', notNull)
    .addColumn('client_key', 'text', notNull)
    .addColumn('text', 'text', notNull)
    .addColumn('input_json', 'text')
    .addColumn('run_key', 'text')
    .addColumn('run_id', 'text')
    .addColumn('pending_input_json', 'text')
    .addColumn('pending_response_json', 'text')
    .addColumn('result_text', 'text')
    .addColumn('result_truncated', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', notNull)
    .execute();

  const index = (name: string) => db.schema.createIndex(name).on('jobs');
  // Idempotency across servers: a retried send finds (or races into) the same row.
  await index('jobs_idempotency_key')
    .unique()
    .columns(['team_id', 'requester_key', 'client_key', 'member_id'])
    .execute();
  await index('jobs_one_receipt_per_request')
    .unique()
    .column('parent_id')
    .where(sql.ref('kind'), '=', 'RECEIPT')
    .execute();
  // One admitted job per conversation, enforced by the database rather than by the planner alone.
  await index('jobs_one_admitted_per_conversation')
    .unique()
    .column('conversation_id')
    .where(sql.ref('phase'), 'in', CONVERSATION_OWNING_PHASES)
    .execute();
  // Planning reads only unfinished work, never the finished history.
  await index('jobs_unfinished_conversation_seq_idx')
    .columns(['conversation_id', 'seq'])
    .where(sql.ref('unfinished'), '=', 1)
    .execute();
  await index('jobs_unfinished_phase_idx').column('phase').where(sql.ref('unfinished'), '=', 1).execute();
  await index('jobs_team_seq_idx').columns(['team_id', 'seq']).execute();
  await index('jobs_owner_phase_seq_idx').columns(['owner', 'phase', 'seq']).execute();
  await index('jobs_root_kind_idx').columns(['root_id', 'kind']).execute();
}
