import type { Kysely, Migration } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * Budgets and failure codes:
 *
 * - `jobs.error_code`: why a FAILED or CANCELLED job ended (`JobErrorCode`: `TIMEOUT`,
 *   `BUDGET_EXHAUSTED`, ...), and on a CANCELLING job who asked; NULL when the reason is unknown,
 *   and on every job finished before this migration (their text stays as it was).
 * - `team_budgets`: a team's limits (`setTeamBudget`); no row or NULL: no limit.
 * - `spend_reservations`: what the model calls in flight may still spend, one row per call,
 *   deleted when the call's real usage is recorded (or ignored after an hour: its server died).
 *
 * Tokens are `bigint` on PostgreSQL (a budget may pass 2^31) and cost `double precision`.
 * Numbered 0010 (budgets); 0008, 0009 and 0011 belong to other lines of work. Kysely applies
 * migrations in name order, so gaps change nothing.
 */
export function budgetsMigration(dialect: DatabaseDialect): Migration {
  const tokens = dialect === 'postgres' ? 'bigint' : 'integer';
  const money = dialect === 'postgres' ? 'double precision' : 'real';
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('jobs').addColumn('error_code', 'text').execute();
      await db.schema
        .createTable('team_budgets')
        .addColumn('team_id', 'text', (c) => c.primaryKey())
        .addColumn('max_tokens', tokens)
        .addColumn('max_cost', money)
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('spend_reservations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('tokens', tokens, (c) => c.notNull())
        .addColumn('cost', money, (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('spend_reservations_team_idx').on('spend_reservations').column('team_id').execute();
      await db.schema
        .createIndex('spend_reservations_owner_day_idx')
        .on('spend_reservations')
        .columns(['owner', 'day'])
        .execute();
      await db.schema
        .createIndex('model_usage_team_idx')
        .on('model_usage')
        .columns(['team_id', 'created_at'])
        .execute();
    },
  };
}
