import BetterSqlite3 from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteDialect,
} from 'kysely';
import { afterAll } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';

/**
 * A Kysely for each dialect the store compiles for, to read a statement's text and bound values:
 * SQLite over an in-memory database, PostgreSQL over a driver that never connects. Destroyed
 * after the test file.
 */
export function sqlCompilers(): { readonly sqlite: Kysely<Database>; readonly postgres: Kysely<Database> } {
  const sqlite = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  const postgres = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  afterAll(async () => {
    await sqlite.destroy();
    await postgres.destroy();
  });
  return { sqlite, postgres };
}
