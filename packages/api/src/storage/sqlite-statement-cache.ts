import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct SQL texts kept prepared; the store issues a few dozen shapes, so this never evicts in practice. */
const MAX_STATEMENTS = 500;

/**
 * Wraps a better-sqlite3 connection so Kysely reuses prepared statements. Kysely's SQLite driver
 * prepares every query anew; preparing costs more than running most of the store's small
 * statements (measured: see docs/benchmarks.md). Safe because the driver serializes all use of
 * its single connection and runs statements with `all`/`run`, which rebind parameters each call.
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
