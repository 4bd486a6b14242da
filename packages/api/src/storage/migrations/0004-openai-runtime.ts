import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * The `openai` runtime's message log and the usage of model calls.
 *
 * - `openai_messages`: every message of a member's conversation in the provider's own shape (user
 *   turn input, assistant answers with their tool calls and arguments, tool results), so a
 *   conversation survives restarts and the next turn carries its context. `(run_id, step)` is
 *   unique: two executions of one run (a replay racing the original) cannot both write a step.
 * - `model_usage`: one row per answered model call (id = the assistant message's id, so recording
 *   is idempotent), summed per job, conversation (member), team and handoff chain.
 */
export function openAiRuntimeMigration(dialect: DatabaseDialect): Migration {
  const seqColumn = dialect === 'sqlite' ? 'integer' : 'bigserial';
  const realType = dialect === 'sqlite' ? 'real' : 'double precision';
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('openai_messages')
        .addColumn('seq', seqColumn, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('job_id', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('content', 'text')
        .addColumn('tool_calls_json', 'text')
        .addColumn('tool_call_id', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('openai_messages_run_step_key', ['run_id', 'step'])
        .execute();
      await db.schema
        .createIndex('openai_messages_conversation_seq_idx')
        .on('openai_messages')
        .columns(['conversation_id', 'seq'])
        .execute();

      await db.schema
        .createTable('model_usage')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('input_tokens', 'integer', (c) => c.notNull())
        .addColumn('output_tokens', 'integer', (c) => c.notNull())
        .addColumn('cost', realType, (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      for (const column of ['team_id', 'job_id', 'conversation_id'] as const) {
        await db.schema.createIndex(`model_usage_${column}_idx`).on('model_usage').column(column).execute();
      }
    },
  };
}
