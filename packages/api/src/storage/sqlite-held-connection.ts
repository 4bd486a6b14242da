import { type Kysely, type QueryResult, type SqliteDatabase, sql } from 'kysely';
import type { Database } from './database-types.js';

/** The statement-caching handle under each SQLite Kysely instance `openDatabase` made. */
const handles = new WeakMap<Kysely<Database>, SqliteDatabase>();

/** Kysely instances that hold the SQLite connection right now, with the handle beneath them. */
const held = new WeakMap<Kysely<Database>, SqliteDatabase>();

/** Records the handle `db` runs its statements on (`openDatabase`, SQLite only). */
export function registerSqliteHandle(db: Kysely<Database>, handle: SqliteDatabase): void {
  handles.set(db, handle);
}

/** The handle beneath `db`, when `openDatabase` registered one. */
export function sqliteHandleOf(db: Kysely<Database>): SqliteDatabase | undefined {
  return handles.get(db);
}

/**
 * Runs `work` with `conn`, a Kysely instance holding the one SQLite connection (a connection
 * builder's callback), marked as such: {@link heldHandle} answers `handle` for it until `work`
 * settles.
 *
 * @remarks Kysely serializes every use of the connection with a mutex, and runs each statement
 * through a chain of async calls (executor, connection provider, the connection) around one
 * synchronous better-sqlite3 call. While a caller holds the connection nobody else can use it, so
 * its statements may call the handle directly, with the same SQL on the same cached statement:
 * only the chain is skipped (about 5 µs a statement: docs/benchmarks.md, fourteenth pass). A
 * statement through `db` itself, which does not hold the connection, must still queue for it:
 * run directly it could land inside another caller's open transaction. The holder awaits its
 * statements one after another (the store's writes do): a compiled statement started while
 * Kysely statements of `conn` were started and not awaited would run before them.
 */
export async function whileHeld<T>(
  conn: Kysely<Database>,
  handle: SqliteDatabase | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (handle === undefined) return work();
  held.set(conn, handle);
  try {
    return await work();
  } finally {
    held.delete(conn);
  }
}

/** The handle to run on directly when `db` holds the SQLite connection now, else undefined. */
export function heldHandle(db: Kysely<Database>): SqliteDatabase | undefined {
  return held.get(db);
}

/**
 * Runs one statement on a held handle and answers what Kysely's SQLite connection answers for it
 * (`SqliteConnection.executeQuery` in Kysely 0.28): the rows of a statement that returns rows,
 * else the changes and the last rowid as bigints.
 */
export function runHeld<R>(handle: SqliteDatabase, sql: string, parameters: readonly unknown[]): QueryResult<R> {
  const statement = handle.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}

/**
 * Runs a statement without parameters or rows (`BEGIN IMMEDIATE`, `SAVEPOINT`, `RELEASE`,
 * `COMMIT`) on `conn`: on its handle when `conn` holds the connection ({@link heldHandle}), else
 * through Kysely.
 *
 * @remarks A batch of writes runs four such statements for one or two of the writes it carries
 * (a savepoint and its release for each, when it carries more than one): through Kysely each is
 * a chain of async calls around one synchronous call. The handle is the same statement-caching
 * one Kysely's driver uses, so a COMMIT run on it is still seen by group commit.
 */
export async function runControl(conn: Kysely<Database>, text: string): Promise<void> {
  const handle = held.get(conn);
  // A plugin (the tests' and benchmarks' statement counters) sees every statement, as before.
  if (handle === undefined || conn.getExecutor().plugins.length > 0) await sql.raw(text).execute(conn);
  else runHeld(handle, text, []);
}
