import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { makeDatabaseDirectory } from './database-directory.js';
import type { Database } from './database-types.js';
import { notePipelined, pipelineBegin } from './pg-pipeline.js';
import { PreparedNames, preparedStatements } from './pg-prepared.js';
import { Checkpointer, type CheckpointStats } from './sqlite-checkpointer.js';
import { DurableSqliteDialect } from './sqlite-durable-dialect.js';
import { acquireSqliteFileLock, type SqliteFileLock } from './sqlite-file-lock.js';
import { registerSqliteHandle } from './sqlite-held-connection.js';
import { type StatementObserver, withStatementCache } from './sqlite-statement-cache.js';
import { type FileSync, WalSync, type WalSyncStats } from './sqlite-wal-sync.js';

export { DatabaseDirectoryError } from './database-directory.js';
export { DatabaseInUseError } from './database-in-use-error.js';

/** The two supported database engines. */
export type DatabaseDialect = 'sqlite' | 'postgres';

/** An open database: the Kysely handle, which engine it is, and how to release it. */
export interface OpenedDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  /** What it was opened from: the file path, `:memory:` or the PostgreSQL URL. */
  readonly target: string;
  /** Closes connections and releases the SQLite single-server lock. */
  close(): Promise<void>;
  /** SQLite files opened with `group`: commits and log syncs so far (`sqlite-wal-sync.ts`). */
  readonly walSync?: () => WalSyncStats;
  /** SQLite files with background checkpoints: how many the worker ran (`sqlite-checkpointer.ts`). */
  readonly checkpoints?: () => CheckpointStats;
}

/**
 * How a SQLite commit is made durable (WAL):
 *
 * - `full` (default): SQLite's own `synchronous=FULL`, the log synced inside every COMMIT, so an
 *   accepted request survives a power loss; the event loop waits for each sync.
 * - `group`: the same guarantee for every writer by group commit ({@link WalSync}): SQLite commits
 *   without a sync and the writer then waits for one `fdatasync` of the log, run off the event
 *   loop and shared by the commits made while the previous one ran. More writes per second under
 *   concurrent load, a longer wait per commit when alone (docs/deployment.md; decision 0200).
 * - `normal`: syncs only at checkpoints, so a commit costs no fsync and a process crash still
 *   loses nothing, but a power loss or an OS crash may lose the last commits (never corrupting
 *   the file).
 *
 * PostgreSQL's counterpart is its own `synchronous_commit`.
 */
export type SqliteSynchronous = 'full' | 'group' | 'normal';

/** The values `--sqlite-synchronous` accepts, the default first. */
export const SQLITE_SYNCHRONOUS: readonly SqliteSynchronous[] = ['full', 'group', 'normal'];

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** SQLite files: `full` (default), `group` or `normal`; see {@link SqliteSynchronous}. */
  readonly sqliteSynchronous?: SqliteSynchronous;
  /** With `group`: the sync of the log (tests hold or fail it; default `fdatasync` on the thread pool). */
  readonly sqliteLogSync?: FileSync;
  /**
   * SQLite files: `background` (default) copies the log into the file on a worker thread ahead of
   * SQLite's own checkpoint, which then has little left to do inside a commit; `inline` leaves
   * checkpoints to SQLite alone (the baseline the benchmarks compare with). See `Checkpointer`.
   */
  readonly sqliteCheckpoints?: 'background' | 'inline';
  /**
   * PostgreSQL: run each statement as a named prepared statement, planned once per connection
   * (default true). Off for poolers in transaction mode that cannot keep them. See `pg-prepared.ts`.
   */
  readonly postgresPrepared?: boolean;
  /**
   * PostgreSQL: send a statement without waiting for the answers before it (`pg`'s pipeline mode),
   * so a transaction's `BEGIN` and first statement share one round trip (default true). Off for a
   * proxy that cannot take pipelined statements. See `pg-pipeline.ts`.
   */
  readonly postgresPipeline?: boolean;
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number;
  /**
   * PostgreSQL: a session that sits inside an open transaction this long is ended by the server
   * (`idle_in_transaction_session_timeout`, default 5 s). Every write transaction here takes
   * milliseconds; one left open means its process stalled (paused, swapped out, cut off), and its
   * row locks (the planning lock above all) must not hold every other server up for longer.
   * Keep it well under the lease TTL.
   */
  readonly stalledTransactionMs?: number;
}

/** Default of {@link OpenDatabaseOptions.stalledTransactionMs}. */
export const STALLED_TRANSACTION_MS = 5_000;

/** True when the target names a PostgreSQL database rather than a SQLite file. */
export function isPostgresTarget(target: string): boolean {
  return target.startsWith('postgres://') || target.startsWith('postgresql://');
}

/**
 * Opens the database named by `--database`: a SQLite file path, `:memory:`, or a
 * `postgres://`/`postgresql://` URL. Does not migrate (see `migrateToLatest`).
 *
 * @remarks SQLite: creates the parent directory, takes the single-server lock, and sets WAL with
 * `full` durability by default (an accepted request must survive a power loss, not only a crash;
 * `group` keeps that with group commit, `normal` trades it for a commit without any sync: see
 * {@link SqliteSynchronous}),
 * `busy_timeout=5000`, `foreign_keys=ON` (the team cascade relies on it) and `temp_store=MEMORY`
 * (decision 0234: migrations and a team's deletion switch it to FILE for their run).
 * @throws DatabaseInUseError when another server holds the SQLite file.
 * @throws DatabaseDirectoryError when the SQLite file's directory cannot be made.
 */
export async function openDatabase(target: string, opts: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  if (isPostgresTarget(target)) {
    const pipeline = opts.postgresPipeline !== false;
    const pool = new pg.Pool({
      connectionString: target,
      max: opts.poolSize ?? 10,
      pipeline,
      idle_in_transaction_session_timeout: opts.stalledTransactionMs ?? STALLED_TRANSACTION_MS,
    });
    // A connection the server closed (a restart, the timeout above after a stall) must not crash
    // the process: idle ones are dropped by the pool ('error' on the pool); a checked-out one
    // ('error' on the client, which the pool does not watch while it is lent out) fails its
    // current or next query, which the caller sees, and the pool discards it on release.
    pool.on('error', () => undefined);
    const names = opts.postgresPrepared === false ? null : new PreparedNames();
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      if (names !== null) preparedStatements(client, names);
      // Outermost: the prepared statements' wrapper sees the `BEGIN` when it is sent.
      if (pipeline) pipelineBegin(client);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    if (pipeline) notePipelined(db);
    // Fail here, with the driver's reason, rather than on the first request.
    try {
      await db.connection().execute(async () => undefined);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    let closing: Promise<void> | null = null;
    return { db, dialect: 'postgres', target, close: () => (closing ??= db.destroy()) };
  }
  const inMemory = target === ':memory:';
  const file = inMemory ? target : resolve(target);
  if (!inMemory) makeDatabaseDirectory(dirname(file));
  const lock: SqliteFileLock | null = inMemory ? null : acquireSqliteFileLock(file);
  const synchronous = opts.sqliteSynchronous ?? 'full';
  // Group commit: SQLite commits without a sync, WalSync syncs the log before the writer goes on.
  const walSync = !inMemory && synchronous === 'group' ? new WalSync(file, opts.sqliteLogSync) : null;
  let database: BetterSqlite3.Database;
  try {
    database = new BetterSqlite3(file);
    if (!inMemory) database.pragma('journal_mode = WAL');
    database.pragma(synchronous === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    // Statement journals in memory, not in a temporary file: a write that shares a transaction runs
    // in its own SAVEPOINT (decision 0224), which copies the first change of every page it touches
    // to a statement journal; past 64 KiB SQLite spilled that journal to a temporary file with two
    // `pwrite`s per page, five times the log's own writes (decision 0234). Sorts and temporary tables
    // then never spill either, so what has no small bound runs with FILE: migrations
    // (`migrate.ts`) and a team's deletion (`runWrite`'s `large`).
    database.pragma('temp_store = MEMORY');
  } catch (error) {
    lock?.release();
    throw error;
  }
  const checkpointer =
    inMemory || opts.sqliteCheckpoints === 'inline'
      ? null
      : new Checkpointer(file, (message) => process.emitWarning(message, 'AgentTeamsCheckpoint'));
  const observe = committedTo([walSync, checkpointer]);
  const statements = withStatementCache(database, observe);
  const dialect =
    walSync === null
      ? new SqliteDialect({ database: statements })
      : new DurableSqliteDialect({ database: statements }, walSync);
  const db = new Kysely<Database>({ dialect });
  // A write's transaction runs its compiled statements on this handle (`sqlite-held-connection.ts`).
  registerSqliteHandle(db, statements);
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    target,
    ...(walSync === null ? {} : { walSync: () => walSync.stats }),
    ...(checkpointer === null ? {} : { checkpoints: () => checkpointer.stats }),
    async close() {
      if (closed) return;
      closed = true;
      // Before the connection closes (it checkpoints one last time, alone).
      await checkpointer?.close();
      await db.destroy();
      lock?.release();
    },
  };
}

/**
 * Tells each listener of every commit of writes (group commit syncs the log, the checkpointer
 * counts): a statement that may write marks the transaction; once none is open, it committed.
 * None: no observer, so statements run unwrapped.
 */
function committedTo(listeners: readonly ({ committed(): void } | null)[]): StatementObserver | undefined {
  const told = listeners.filter((listener) => listener !== null);
  if (told.length === 0) return undefined;
  let wrote = false;
  return (writes, open) => {
    if (writes) wrote = true;
    if (!wrote || open) return;
    wrote = false;
    for (const listener of told) listener.committed();
  };
}
