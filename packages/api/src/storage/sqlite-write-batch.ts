// Node's own, not the global a test's fake timers replace: a host testing with faked timers
// would otherwise see every write of an embedded server wait forever.
import { setImmediate } from 'node:timers';
import { type Kysely, type SqliteDatabase, sql } from 'kysely';
import type { Database } from './database-types.js';
import { runControl, sqliteHandleOf, whileHeld } from './sqlite-held-connection.js';
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
  /** A write with no small bound on the pages it changes: runs alone, temporary files on disk. */
  readonly large: boolean;
}

/**
 * What a batch that committed did with one of its writes: committed it, or rolled it back to its
 * savepoint (refused). Both are answered only after that COMMIT: a refusal may rest on what the
 * batch's earlier writes wrote, which is not durable before it.
 */
type Outcome =
  | { readonly entry: Queued; readonly scope: WriteScope; readonly result: unknown; readonly refused?: undefined }
  | { readonly entry: Queued; readonly scope?: undefined; readonly refused: { readonly error: unknown } };

/**
 * Writes to one SQLite database that share transactions (decision 0224): the writes queued when
 * a batch asks for the connection (one turn of the event loop after the first, or while the
 * previous batch ran) run one after another in one `BEGIN IMMEDIATE … COMMIT`, each inside a
 * savepoint of its own, and one COMMIT (one sync of the log with `synchronous=FULL`) makes all of
 * them durable. A write that arrives alone runs alone, as before, without a savepoint.
 *
 * @remarks Crash safety is unchanged: no write is answered, with its result or its error, and no
 * event of it published, before the COMMIT that holds it returned and (group commit) the log's
 * sync that covers it ended; the next batch begins only after that, so all it answers comes after
 * this one is durable. A write that fails rolls back to its savepoint; the others commit. A COMMIT
 * that fails, or a write that ends the whole transaction (SQLite rolls back by itself on a full
 * disk or an I/O error), fails every write of the batch that ran with that error, a refused one
 * too (its refusal may rest on what was rolled back); those not run yet wait for the next
 * transaction. Every transaction thus answers at least one write: a full disk cannot loop it.
 * Reads keep their turn: a batch takes only the writes queued when it asked for the connection,
 * never one that queued behind a read that waits too. A read does not wait for a write still
 * queued: a caller reads what it wrote only after awaiting the write (as on PostgreSQL). No
 * async context is carried (decision 0236): a write's events are published in its caller's
 * `runWrite`, inside that caller's own publish window.
 */
export class SqliteWriteBatch {
  readonly #db: Kysely<Database>;
  readonly #queue: Queued[] = [];
  #draining = false;

  /** The handle beneath `db`, for the statements of a held connection (`sqlite-held-connection.ts`). */
  readonly #handle: SqliteDatabase | undefined;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#handle = sqliteHandleOf(db);
  }

  /**
   * Runs `work` in the next transaction; resolves once that transaction committed. `large`: the
   * write has no small bound on the pages it changes (a team's deletion cascades over its whole
   * history), so it runs in a transaction of its own with SQLite's temporary files on disk: its
   * statement journal may then spill to a file instead of holding every page in memory
   * (decision 0234).
   */
  run<T>(
    ctx: StoreContext,
    now: string,
    work: (scope: WriteScope) => Promise<T>,
    large = false,
  ): Promise<{ result: T; scope: WriteScope }> {
    return new Promise((resolve, reject) => {
      // No async context to carry into the batch: none is kept (decision 0236).
      this.#queue.push({ ctx, now, work, resolve: resolve as Queued['resolve'], reject, large });
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
        const take = batchSize(this.#queue);
        const large = this.#queue[0]?.large === true;
        let outcomes: readonly Outcome[] = [];
        try {
          await this.#db.connection().execute(async (conn) => {
            // Outside the transaction: SQLite refuses to change where temporary files go inside one.
            if (large) await sql`PRAGMA temp_store = FILE`.execute(conn);
            try {
              outcomes = await whileHeld(conn, this.#handle, () => this.#batch(conn, take));
            } finally {
              // Never fails the batch, which has committed: at worst later writes spill to disk.
              if (large) await sql`PRAGMA temp_store = MEMORY`.execute(conn).catch(() => undefined);
            }
          });
        } catch (error) {
          // The sync after the COMMIT failed (the handle is poisoned: `sqlite-wal-sync.ts`), or
          // the connection did (closed): nothing of the batch may be reported, and every waiting
          // write hears it.
          answer(outcomes, { error });
          for (const entry of this.#queue.splice(0)) entry.reject(error);
          continue;
        }
        // Only now: with group commit the connection's release waited for the log's sync. The
        // next batch begins after it, so whatever it answers comes after this batch is durable.
        answer(outcomes, null);
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * One transaction for the first `take` writes queued. Returns what it did with each once it
   * committed; when the transaction failed, answers or requeues its writes itself and returns [].
   */
  async #batch(conn: Kysely<Database>, take: number): Promise<readonly Outcome[]> {
    const entries = this.#queue.splice(0, take);
    try {
      await runControl(conn, 'BEGIN IMMEDIATE');
    } catch (error) {
      // The first write hears why (its retry decides); the others try the next transaction.
      this.#queue.unshift(...entries.slice(1));
      entries[0]?.reject(error);
      return [];
    }
    const alone = entries.length === 1;
    const outcomes: Outcome[] = [];
    // The runs whose end a write of this batch wrote: a later write of it finds it written.
    const carried = new Set<string>();
    let at = 0;
    let current: WriteScope | null = null;
    try {
      for (; at < entries.length; at += 1) {
        const entry = entries[at] as Queued;
        const scope = new WriteScope(conn, entry.ctx, entry.now, carried);
        current = scope;
        if (!alone) await runControl(conn, `SAVEPOINT ${SAVEPOINT}`);
        let result: unknown;
        try {
          result = await entry.work(scope);
          await scope.events.flush();
          if (!alone) await runControl(conn, `RELEASE SAVEPOINT ${SAVEPOINT}`);
        } catch (error) {
          if (alone) throw error;
          await rollBackTo(conn, error);
          current = null;
          scope.endRides(error);
          outcomes.push({ entry, refused: { error } });
          continue;
        }
        current = null;
        for (const runId of scope.carriedRuns()) carried.add(runId);
        outcomes.push({ entry, scope, result });
      }
      await runControl(conn, 'COMMIT');
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; the original error is what matters.
      await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      for (const outcome of outcomes) outcome.scope?.endRides(error);
      // Every write that ran hears it (a refused one too: its refusal may rest on what was rolled
      // back); `runWrite` retries those whose error is retryable. Rerunning them here instead could
      // loop forever on a full disk (a COMMIT of rolled-back savepoints still writes the log) and
      // would consume a run's one-shot "voided" mark twice (`RunRides.claim`).
      (current as WriteScope | null)?.endRides(error);
      for (const outcome of outcomes) outcome.entry.reject(error);
      if (current !== null) entries[at]?.reject(error);
      // Not run yet: the next transaction takes them first.
      this.#queue.unshift(...entries.slice(current === null ? at : at + 1));
      return [];
    }
    // Inside the connection: no other transaction can claim a ride these still hold.
    for (const outcome of outcomes) outcome.scope?.endRides(null);
    return outcomes;
  }
}

/**
 * How many of the queued writes the next transaction takes: a large write alone; otherwise the
 * writes before the first large one, at most {@link MAX_BATCH_WRITES}.
 */
function batchSize(queue: readonly Queued[]): number {
  if (queue[0]?.large === true) return 1;
  const limit = Math.min(queue.length, MAX_BATCH_WRITES);
  for (let i = 1; i < limit; i += 1) if (queue[i]?.large === true) return i;
  return limit;
}

/** Answers a committed batch's writes in order; `failed`: what made the batch's durability fail. */
function answer(outcomes: readonly Outcome[], failed: { readonly error: unknown } | null): void {
  for (const outcome of outcomes) {
    if (failed !== null) outcome.entry.reject(failed.error);
    else if (outcome.refused !== undefined) outcome.entry.reject(outcome.refused.error);
    else outcome.entry.resolve({ result: outcome.result, scope: outcome.scope });
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
