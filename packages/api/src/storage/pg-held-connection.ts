import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './database-types.js';
import { CLIENT_OF_CONNECTION, isPipelined } from './pg-pipeline.js';
import { serverCheckError } from './pg-server-check.js';

/** What a `pg` client answers (the fields Kysely reads). */
interface PgResult {
  readonly command: string;
  readonly rowCount: number | null;
  readonly rows?: unknown[];
}

/** The part of a pool client a held connection calls. */
interface PgClient {
  query(text: string, values: readonly unknown[]): Promise<PgResult>;
}

/** A statement sent and not awaited, with its check (see {@link PgHeldConnection.defer}). */
interface Deferred {
  /** Settles when its answer came and its check ran: with the check's or the statement's error. */
  readonly done: Promise<void>;
  failure: { readonly error: unknown } | null;
  /** Its check cannot fail once the statement succeeded (the server checks): the COMMIT need not wait for it. */
  readonly serverChecked: boolean;
}

/**
 * A PostgreSQL write transaction's own pool client, on a pipelining pool (`pg-pipeline.ts`): its
 * compiled statements go straight to the client (`CompiledStatement`), without Kysely's chain of
 * calls, which waits for each statement's answer before it sends the next. So a statement whose
 * answer is only checked can be sent and left ({@link defer}): the next statement follows it on
 * the wire, and both cost one round trip. The server runs them in the order sent, so each still
 * sees what the ones before it wrote, as when they were awaited one by one.
 *
 * @remarks A deferred statement's check runs when its answer comes; the transaction settles
 * those it checks itself, in the order sent, before its COMMIT ({@link settleForCommit}): the
 * first failure in that order is thrown, as it would have been had the statement been awaited,
 * and the transaction rolls back. Those the server checks (a failed check fails the statement,
 * `pg-server-check.ts`) are not waited for: the COMMIT follows them on the wire, and when one
 * failed, the transaction was aborted and the COMMIT answers ROLLBACK (`pg-pipeline.ts` throws),
 * so the write fails with that statement's error ({@link firstFailure}). A later statement that failed because an earlier deferred one aborted the
 * transaction is told by that earlier one's error ({@link firstFailure}), so a retryable cause
 * (a deadlock, a unique violation another server caused) is still retried.
 */
export class PgHeldConnection {
  readonly #client: PgClient;
  readonly #deferred: Deferred[] = [];
  /** What the failure of a statement left now becomes ({@link blamed}); null: itself. */
  #blame: ((error: unknown) => unknown) | null = null;

  constructor(client: PgClient) {
    this.#client = client;
  }

  /** Sends `sql` now, ahead of anything sent after this call; answers as Kysely's driver would. */
  run<R>(sql: string, values: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#client.query(sql, values).then(toQueryResult<R>);
  }

  /**
   * Leaves `sent` (a statement already sent on this connection) to be checked by `check` when its
   * answer comes, instead of waiting for that answer here: before the transaction commits, or,
   * when `serverChecked` (`check` cannot fail once the statement succeeded: the server checks what
   * needs checking, `pg-server-check.ts`), with its COMMIT.
   */
  defer<T>(sent: Promise<T>, check: (answer: T) => void, serverChecked = false): void {
    const blame = this.#blame;
    const entry: Deferred = {
      done: sent.then(check).catch((thrown: unknown) => {
        const error = serverCheckError(thrown);
        entry.failure = { error: blame === null ? error : blame(error) };
      }),
      failure: null,
      serverChecked,
    };
    this.#deferred.push(entry);
  }

  /** Set while a job write carries a run's end (`WriteScope.carryRide`): see {@link rideWritesLeft}. */
  #carryingRide = false;

  /**
   * Runs `work`, a run's end carried by a job write, with the run's conditional writes left to the
   * server: a run another execution ended first then fails its statement on the server, and the
   * transaction's COMMIT with it (the caller maps that refusal to a lost ride).
   */
  async carryingRide<T>(work: () => Promise<T>): Promise<T> {
    const before = this.#carryingRide;
    this.#carryingRide = true;
    try {
      return await work();
    } finally {
      this.#carryingRide = before;
    }
  }

  /** Whether a carried run's end is being written ({@link carryingRide}). */
  get isCarryingRide(): boolean {
    return this.#carryingRide;
  }

  /**
   * Runs `work`, the failure of each statement it leaves to be checked later mapped by `blame`,
   * then by the mapping of any `blamed` around this one (a job's own failure inside a ridden
   * admission is both that job's, `AdmissionJobError`, and the ride's).
   */
  async blamed<T>(blame: (error: unknown) => unknown, work: () => Promise<T>): Promise<T> {
    const before = this.#blame;
    this.#blame = before === null ? blame : (error) => before(blame(error));
    try {
      return await work();
    } finally {
      this.#blame = before;
    }
  }

  /** Waits for every deferred statement, in the order sent; throws the first one's failure. */
  async settle(): Promise<void> {
    const failure = await this.firstFailure();
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Waits for the deferred statements whose check runs here, and those sent before them, in the
   * order sent; throws the first failure. Those the server checks, sent after the last of them,
   * are left to go with the COMMIT (see the class's remarks).
   */
  async settleForCommit(): Promise<void> {
    let last = this.#deferred.length - 1;
    while (last >= 0 && this.#deferred[last]?.serverChecked === true) last -= 1;
    const waited = this.#deferred.slice(0, last + 1);
    for (const entry of waited) {
      await entry.done;
      // Left in place: the caller's `firstFailure` tells it again, as the first in the order sent.
      if (entry.failure !== null) throw entry.failure.error;
    }
    this.#deferred.splice(0, waited.length);
  }

  /** The first failure of the deferred statements in the order sent, once all have settled (none: undefined). */
  async firstFailure(): Promise<{ readonly error: unknown } | undefined> {
    const deferred = this.#deferred.splice(0);
    let first: { readonly error: unknown } | undefined;
    for (const entry of deferred) {
      await entry.done;
      first ??= entry.failure ?? undefined;
    }
    return first;
  }
}

/** What Kysely's PostgreSQL connection makes of an answer (`PostgresConnection.executeQuery`). */
function toQueryResult<R>({ command, rowCount, rows }: PgResult): QueryResult<R> {
  const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return {
    ...(changed ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}),
    rows: (rows ?? []) as R[],
  };
}

/** The held connection of each open PostgreSQL write transaction (its `trx`). */
const held = new WeakMap<Kysely<Database>, PgHeldConnection>();

/**
 * Holds `trx`'s pool client for the transaction, when `db` (the database it runs on) pipelines
 * and no plugin must see each statement (the statement counters of tests and benchmarks). Asks
 * the client itself: nothing is sent.
 */
export async function holdPgConnection(db: Kysely<Database>, trx: Kysely<Database>): Promise<PgHeldConnection | null> {
  if (!isPipelined(db) || trx.getExecutor().plugins.length > 0) return null;
  const { rows } = await trx.executeQuery<{ client: PgClient }>(CompiledQuery.raw(CLIENT_OF_CONNECTION));
  const client = rows[0]?.client;
  if (client === undefined) return null;
  const connection = new PgHeldConnection(client);
  held.set(trx, connection);
  return connection;
}

/** The held connection of `db`, a write transaction's handle (none: not held). */
export function pgHeld(db: Kysely<Database>): PgHeldConnection | undefined {
  return held.get(db);
}

/**
 * Runs a write whose answer is only checked: on a held PostgreSQL connection, sent and checked
 * before the commit, or with it when `serverChecked` ({@link PgHeldConnection.defer}); anywhere
 * else, awaited and checked here.
 * `send` must send its statement when called (a `CompiledStatement`), so the order holds.
 */
export async function writeThenCheck<T>(
  db: Kysely<Database>,
  send: () => Promise<T>,
  check: (answer: T) => void,
  serverChecked = false,
) {
  const connection = held.get(db);
  if (connection === undefined) {
    let answer: T;
    try {
      answer = await send();
    } catch (error) {
      throw serverCheckError(error);
    }
    check(answer);
    return;
  }
  connection.defer(send(), check, serverChecked);
}

/**
 * Runs `work` on `db` so that a statement it sends and leaves to be checked later fails, when it
 * does, with `blame` of its error: as `work` itself would have failed had it waited for it.
 */
export function blamed<T>(
  db: Kysely<Database>,
  blame: (error: unknown) => unknown,
  work: () => Promise<T>,
): Promise<T> {
  const connection = held.get(db);
  return connection === undefined ? work() : connection.blamed(blame, work);
}

/**
 * The held connection of `db` while it writes a run's end carried by a job write
 * ({@link PgHeldConnection.carryingRide}): a runtime's conditional write of its run (its row's
 * insert or move, its step's messages) is then sent with a server check and left, instead of
 * awaited for the rows it wrote. Anywhere else undefined: the write is awaited, and its caller
 * told whether it took effect.
 */
export function rideWritesLeft(db: Kysely<Database>): PgHeldConnection | undefined {
  const connection = held.get(db);
  return connection?.isCarryingRide === true ? connection : undefined;
}
