import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { rawRows } from './sqlite-row-builder.js';

/** Distinct SQL texts kept prepared; the store issues a few dozen shapes, so this never evicts in practice. */
const MAX_STATEMENTS = 500;

/** Statements that change the schema: the columns of statements prepared before may change. */
const DDL = /^\s*(CREATE|ALTER|DROP)\b/i;

/** Statements that only open or end a transaction. */
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** Told after each statement ran: whether it may write, and whether a transaction is still open. */
export type StatementObserver = (statementWrites: boolean, inTransaction: boolean) => void;

/**
 * Wraps a better-sqlite3 connection so Kysely reuses prepared statements. Kysely's SQLite driver
 * prepares every query anew; preparing costs more than running most of the store's small
 * statements (measured: see docs/benchmarks.md). Safe because the driver serializes all use of
 * its single connection and runs statements with `all`/`run`, which rebind parameters each call.
 *
 * @param observe told after every statement (group commit counts commits with it: `sqlite-wal-sync.ts`).
 */
export function withStatementCache(database: BetterSqlite3.Database, observe?: StatementObserver): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  /** DDL run on this connection, counted: see {@link runnerOf}. */
  const schema = { value: 0 };
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        const prepared = database.prepare(sql);
        const runs = runnerOf(prepared, schema);
        statement = observe === undefined ? runs : observed(database, prepared, runs, observe);
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

/**
 * How one prepared statement runs: a reading statement builds its rows in JavaScript
 * (`sqlite-row-builder.ts`); a DDL statement counts in `schema`, so the row builders compiled
 * before it re-read their statements' columns; anything else runs as better-sqlite3 prepared it.
 */
function runnerOf(prepared: BetterSqlite3.Statement, schema: { value: number }): SqliteStatement {
  const rows = rawRows(prepared, schema);
  if (rows !== null) {
    return { reader: true, all: rows.all, iterate: rows.iterate, run: (parameters) => prepared.run(parameters) };
  }
  if (!DDL.test(prepared.source)) return prepared;
  return {
    reader: false,
    all: (parameters) => prepared.all(parameters),
    iterate: (parameters) => prepared.iterate(parameters),
    run(parameters) {
      try {
        return prepared.run(parameters);
      } finally {
        schema.value += 1;
      }
    },
  };
}

/**
 * The statement as Kysely uses it, telling `observe` after each run. `readonly` is SQLite's own
 * answer (`sqlite3_stmt_readonly`): an `INSERT … RETURNING` read with `all` still writes, and
 * `COMMIT` counts as read-only (it only ends what the writes began); `BEGIN IMMEDIATE`, which
 * SQLite reports as writing, is told apart by its text.
 */
function observed(
  database: BetterSqlite3.Database,
  prepared: BetterSqlite3.Statement,
  statement: SqliteStatement,
  observe: StatementObserver,
): SqliteStatement {
  // `BEGIN IMMEDIATE` is not read-only to SQLite (it takes the write lock), but it writes
  // nothing: a transaction that only read must not count as a commit to sync.
  const writes = !prepared.readonly && !TRANSACTION_CONTROL.test(prepared.source);
  return {
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        observe(writes, database.inTransaction);
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        observe(writes, database.inTransaction);
      }
    },
    *iterate(parameters) {
      try {
        yield* statement.iterate(parameters);
      } finally {
        observe(writes, database.inTransaction);
      }
    },
  };
}
