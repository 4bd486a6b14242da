import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** The databases a runtime test file runs on, by the name `describe.each` gives them. */
export const RUNTIME_TARGETS = ['SQLite', 'PostgreSQL'] as const;

/**
 * Where a runtime fixture opens its database (`useRuntimeFixture(targets.open)`): a new SQLite
 * database in memory, or, inside a `describe` whose {@link RuntimeTargets.use} named PostgreSQL,
 * a fresh PostgreSQL database made once for it, its runtime tables emptied at each opening.
 */
export interface RuntimeTargets {
  readonly open: () => Promise<OpenedDatabase>;
  /** Registers the hooks of one `describe` on `target` (`name`: the PostgreSQL database's prefix). */
  use(target: (typeof RUNTIME_TARGETS)[number], name: string): void;
}

/** The {@link RuntimeTargets} of one test file (its PostgreSQL databases dropped after each `describe`). */
export function runtimeTargets(): RuntimeTargets {
  let openTarget: () => Promise<OpenedDatabase> = () => openDatabase(':memory:');
  return {
    open: () => openTarget(),
    use(target, name) {
      let pg: FreshPostgres | null = null;
      beforeAll(async () => {
        if (target !== 'PostgreSQL') return;
        const fresh = await createFreshPostgres(name);
        pg = fresh;
        openTarget = async () => {
          const database = await openDatabase(fresh.url, { poolSize: 4 });
          const tables = sql`runtime_runs, openai_messages, model_usage, conversation_messages`;
          await sql`TRUNCATE ${tables} RESTART IDENTITY`.execute(database.db);
          return database;
        };
      });
      afterAll(async () => {
        openTarget = () => openDatabase(':memory:');
        await pg?.drop();
      });
    },
  };
}
