// Node's own, not the global a test's fake timers replace: a host testing with faked timers
// would otherwise see every write of an embedded server wait forever.
import { setImmediate } from 'node:timers';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database-types.js';
import { type StoreContext, WriteScope } from './write-transaction.js';

/**
 * The most writes one SQLite transaction carries. A batch holds the connection while its writes
 * run one after another, so reads queued meanwhile wait for all of them: this bounds that wait
 * (a write takes 0.1–1 ms here) while a busy server still shares one sync among many writes.
 */
export const MAX_BATCH_WRITES = 32;

/** The savepoint each write of a shared transaction runs in: a failing write rolls back alone. */
const SAVEPOINT = 'batch_write';

/** One write waiting for a transaction. */
interface Queued {
  readonly ctx: StoreContext;
  readonly now: string;
  readonly work: (scope: WriteScope) => Promise<unknown>;
  readonly resolve: (done: { result: unknown; scope: WriteScope }) => void;
  readonly reject: (error: unknown) => void;
}

/** A write of a batch whose work ended and whose savepoint was released: it commits with the batch. */
interface Ran {
  readonly entry: Queued;
  readonly scope: WriteScope;
  readonly result: unknown;
}

/**
 * Writes to one SQLite database that share transactions (decision 0224): the writes queued while
 * the connection was busy run one after another in one `BEGIN IMMEDIATE … COMMIT`, each inside a
 * savepoint of its own, and one COMMIT (one sync of the log with `synchronous=FULL`) makes all of
 * them durable. A write that arrives alone runs alone, as before, without a savepoint.
 *
 * @remarks Crash safety is unchanged: no write is answered, and no event of it published, before
 * the COMMIT that holds it returned (and, with group commit, before its sync). A write that fails
 * rolls back to its savepoint and is answered with its error at once; the others commit. A COMMIT
 * that fails, or a failure that ended the whole transaction (SQLite rolls back by itself on a full
 * disk or an I/O error), fails every write of the batch that ran; the writes that had not run yet
 * wait for the next transaction. Reads keep their turn: a batch takes only the writes queued when
 * it got the connection, never one that queued behind a read.
 */
export class SqliteWriteBatch {
  readonly #db: Kysely<Database>;
  readonly #queue: Queued[] = [];
  #draining = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Runs `work` in the next transaction; resolves once that transaction committed. */
  run<T>(
    ctx: StoreContext,
    now: string,
    work: (scope: WriteScope) => Promise<T>,
  ): Promise<{ result: T; scope: WriteScope }> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ ctx, now, work, resolve: resolve as Queued['resolve'], reject });
      if (this.#draining) return;
      this.#draining = true;
      // One turn of the event loop first: the requests whose bytes arrived with this one reach
      // their writes meanwhile and share its transaction. On SQLite a transaction never waits on
      // I/O (better-sqlite3 is synchronous), so without this wait no other write could ever join.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        let committed: readonly Ran[] = [];
        try {
          await this.#db.connection().execute(async (conn) => {
            committed = await this.#batch(conn);
          });
        } catch (error) {
          // The connection failed (closed), or with group commit the sync after the COMMIT did
          // (the handle is poisoned: `sqlite-wal-sync.ts`): nothing here may be reported durable.
          for (const { entry } of committed) entry.reject(error);
          for (const entry of this.#queue.splice(0)) entry.reject(error);
          continue;
        }
        // Only now: with group commit the connection's release waits for the log's sync.
        for (const { entry, scope, result } of committed) entry.resolve({ result, scope });
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * One transaction for the writes queued now (at most {@link MAX_BATCH_WRITES}). Failed writes
   * are answered here; those committed are returned, to be answered once the connection is free.
   */
  async #batch(conn: Kysely<Database>): Promise<readonly Ran[]> {
    const entries = this.#queue.splice(0, MAX_BATCH_WRITES);
    try {
      await sql`BEGIN IMMEDIATE`.execute(conn);
    } catch (error) {
      // The first write hears why (its retry decides); the others try the next transaction.
      this.#queue.unshift(...entries.slice(1));
      entries[0]?.reject(error);
      return [];
    }
    const alone = entries.length === 1;
    const ran: Ran[] = [];
    // The runs whose end a write of this batch wrote: a later write of it finds it written.
    const carried = new Set<string>();
    let at = 0;
    let current: WriteScope | null = null;
    try {
      for (; at < entries.length; at += 1) {
        const entry = entries[at] as Queued;
        const scope = new WriteScope(conn, entry.ctx, entry.now, carried);
        current = scope;
        if (!alone) await sql.raw(`SAVEPOINT ${SAVEPOINT}`).execute(conn);
        let result: unknown;
        try {
          result = await entry.work(scope);
          await scope.events.flush();
          if (!alone) await sql.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`).execute(conn);
        } catch (error) {
          if (alone) throw error;
          await rollBackTo(conn, error);
          current = null;
          scope.endRides(error);
          entry.reject(error);
          continue;
        }
        current = null;
        for (const runId of scope.carriedRuns()) carried.add(runId);
        ran.push({ entry, scope, result });
      }
      await sql`COMMIT`.execute(conn);
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; the original error is what matters.
      await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      for (const { entry, scope } of ran) {
        scope.endRides(error);
        entry.reject(error);
      }
      if (current !== null) {
        (current as WriteScope).endRides(error);
        entries[at]?.reject(error);
      }
      // Not run yet: the next transaction takes them first.
      this.#queue.unshift(...entries.slice(at + 1));
      return [];
    }
    // Inside the connection: no other transaction can claim a ride these still hold.
    for (const { scope } of ran) scope.endRides(null);
    return ran;
  }
}

/**
 * Rolls a failed write back to its savepoint. When that fails, the database ended the whole
 * transaction (a full disk, an I/O error): the write's own error is thrown, failing the batch.
 */
async function rollBackTo(conn: Kysely<Database>, error: unknown): Promise<void> {
  try {
    await sql.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`).execute(conn);
    await sql.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`).execute(conn);
  } catch {
    throw error;
  }
}

/** One batch per database handle: every store over it shares its transactions. */
const batches = new WeakMap<Kysely<Database>, SqliteWriteBatch>();

/** The write batch of `db` (made on first use). */
export function writeBatchOf(db: Kysely<Database>): SqliteWriteBatch {
  let batch = batches.get(db);
  if (batch === undefined) {
    batch = new SqliteWriteBatch(db);
    batches.set(db, batch);
  }
  return batch;
}
