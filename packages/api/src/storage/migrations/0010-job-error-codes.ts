import type { Kysely, Migration } from 'kysely';

/**
 * `jobs.error_code`: why a FAILED or CANCELLED job ended (`JobErrorCode`: `TIMEOUT`,
 * `BUDGET_EXHAUSTED`, ...), and on a CANCELLING job who asked; NULL when the reason is unknown,
 * and on every job finished before this migration (their text stays as it was).
 *
 * Numbered 0010 (budgets); 0008, 0009 and 0011 belong to other lines of work. Kysely applies
 * migrations in name order, so gaps change nothing.
 */
export function jobErrorCodesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('jobs').addColumn('error_code', 'text').execute();
    },
  };
}
