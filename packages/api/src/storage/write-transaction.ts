import { DomainError, type EventSink, type IdGenerator, notFound, type TeamId } from '@agent-teams/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, TeamsTable } from './database-types.js';
import { classifyDriverError, DriverErrorKind, StorageError } from './driver-errors.js';
import type { DatabaseDialect } from './open-database.js';
import { type HeldRide, RideLostError, type RunRides } from './run-rides.js';
import { TeamEventWriter } from './team-event-writer.js';

/** SQLite's `PRAGMA synchronous` level FULL. */
const FULL_SYNC = 2;

/** How many times a transaction is tried when the database asks for a retry. */
const MAX_ATTEMPTS = 5;

/** The store's handle on its database. */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  readonly sink: EventSink | null;
  /** Mints ids of the record messages effects append; null: ids derived from the job. */
  readonly ids: Pick<IdGenerator, 'recordId'> | null;
  /** Final writes of ended runs that a job write recording the run carries (absent: none). */
  readonly rides?: RunRides | null;
}

/** One write transaction: the transactional handle, the caller's `now`, and its event writer. */
export class WriteScope {
  readonly events: TeamEventWriter;

  readonly dialect: DatabaseDialect;
  readonly ids: Pick<IdGenerator, 'recordId'> | null;
  readonly #rides: RunRides | null;
  readonly #held: HeldRide[] = [];
  #syncRequired = false;

  constructor(
    readonly trx: Kysely<Database>,
    ctx: StoreContext,
    readonly now: string,
  ) {
    this.dialect = ctx.dialect;
    this.ids = ctx.ids;
    this.#rides = ctx.rides ?? null;
    this.events = new TeamEventWriter(trx, now, ctx.dialect);
  }

  /**
   * Writes the offered end of run `runId` in this transaction, if one waits (`run-rides.ts`):
   * a job write that records a run carries its end, so both commit together. `decided`: this is a
   * job write decided on the run's announced end (the scheduler's). Throws `RideLostError` (rolling
   * back) when another execution ended the run first, or, for a decided write, once when the
   * announcement was voided meanwhile (`RunRides.claim`).
   * @returns whether an end was written here.
   */
  async carryRide(runId: string, decided = false): Promise<boolean> {
    const ride = await this.#rides?.claim(runId, decided);
    if (ride === undefined) return false;
    this.#held.push(ride);
    let wrote: boolean;
    try {
      wrote = await ride.write(this.trx, this.now);
    } catch (error) {
      this.#rides?.failed(ride);
      throw error;
    }
    if (!wrote) throw new RideLostError(runId);
    return true;
  }

  /**
   * Marks this transaction as one a caller is told of (it ended a job): under `deferSync` it is
   * rolled back before COMMIT and run again synced, so nobody learns of a result a power loss
   * could take back.
   */
  requireSync(): void {
    this.#syncRequired = true;
  }

  /** True once {@link requireSync} was called. */
  get syncRequired(): boolean {
    return this.#syncRequired;
  }

  /** Tells the rides this transaction held how it ended (null: committed). Before its connection is released. */
  endRides(error: unknown | null): void {
    for (const ride of this.#held.splice(0)) this.#rides?.ended(ride, error);
  }

  /**
   * Reads a team row, locking it on PostgreSQL (`FOR UPDATE`) so enqueue, update and delete of
   * one team serialize across servers. SQLite needs no row lock: `BEGIN IMMEDIATE` already holds
   * the database's single write lock.
   */
  async lockTeam(teamId: TeamId): Promise<Selectable<TeamsTable> | undefined> {
    const query = this.trx.selectFrom('teams').selectAll().where('id', '=', teamId);
    return this.dialect === 'postgres' ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
  }

  /** Like {@link lockTeam}, scoped to an owner: NOT_FOUND for an absent or another owner's team. */
  async lockOwnedTeam(owner: string, teamId: TeamId): Promise<Selectable<TeamsTable>> {
    const team = await this.lockTeam(teamId);
    if (team === undefined || team.owner !== owner) throw notFound('team');
    return team;
  }
}

/** How {@link runWrite} runs its transaction. */
export interface WriteOptions {
  /** Try again on a unique violation (a racing insert of the same key): the retry reads it. */
  readonly retryOnUniqueViolation?: boolean;
  /** Try again when the transaction lost a run's offered end (a person's write, not decided on it). */
  readonly retryOnLostRide?: boolean;
  /**
   * The commit need not be on disk by itself: the next synced commit of the file takes it there
   * (a WAL is synced as a whole, so what survives a power loss is a prefix of the commits). For
   * writes whose loss only replays work, never for what a caller is told was accepted or
   * finished: on a SQLite file synced in every COMMIT (the default), this one commit is not,
   * unless `work` calls `WriteScope.requireSync` (it ended a job): then it is rolled back and run
   * again synced. In other modes and on PostgreSQL it changes nothing (decision 0222).
   */
  readonly deferSync?: boolean;
}

/**
 * Runs `work` in one write transaction and publishes its events after COMMIT (never before, never
 * after a rollback).
 *
 * @remarks SQLite: `BEGIN IMMEDIATE` on the driver's single connection (Kysely's own transaction
 * issues a deferred `BEGIN`, which can fail with SQLITE_BUSY at the first write instead of
 * waiting at the start). PostgreSQL: Kysely's transaction at READ COMMITTED plus row locks.
 * Retryable conditions (busy, serialization failure, deadlock) run `work` again from the start;
 * with `retryOnUniqueViolation`, so does a unique violation, so `work` re-reads the row another
 * server inserted first; with `retryOnLostRide`, so does a `RideLostError` (`run-rides.ts`).
 */
export async function runWrite<T>(
  ctx: StoreContext,
  now: string,
  work: (scope: WriteScope) => Promise<T>,
  opts: WriteOptions = {},
): Promise<T> {
  let deferSync = opts.deferSync === true;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { result, scope } = await runOnce(ctx, now, work, deferSync);
      if (ctx.sink !== null && scope.events.events.length > 0) ctx.sink.published(scope.events.events);
      return result;
    } catch (error) {
      // The unsynced attempt ended a job: the same work again, synced (rolled back, nothing told).
      if (error instanceof SyncRequired && deferSync) {
        deferSync = false;
        continue;
      }
      if (error instanceof DomainError) throw error;
      // A write not decided on the run's announced end (a person's cancel): the lost ride is gone now.
      if (error instanceof RideLostError && opts.retryOnLostRide === true && attempt < MAX_ATTEMPTS) continue;
      const kind = classifyDriverError(error, ctx.dialect);
      const retry =
        kind === DriverErrorKind.RETRYABLE ||
        (kind === DriverErrorKind.UNIQUE_VIOLATION && opts.retryOnUniqueViolation === true);
      if (kind === DriverErrorKind.OTHER) throw error;
      if (!retry || attempt >= MAX_ATTEMPTS) {
        throw new StorageError(kind, `write failed after ${attempt} attempt(s): ${kind}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 2 * attempt + Math.random() * 5 * attempt));
    }
  }
}

async function runOnce<T>(
  ctx: StoreContext,
  now: string,
  work: (scope: WriteScope) => Promise<T>,
  deferSync: boolean,
): Promise<{ result: T; scope: WriteScope }> {
  if (ctx.dialect === 'postgres') {
    let scope: WriteScope | null = null;
    try {
      const done = await ctx.db.transaction().execute(async (trx) => {
        scope = new WriteScope(trx, ctx, now);
        const result = await work(scope);
        await scope.events.flush();
        return { result, scope };
      });
      done.scope.endRides(null);
      return done;
    } catch (error) {
      (scope as WriteScope | null)?.endRides(error);
      throw error;
    }
  }
  return ctx.db.connection().execute(async (conn) => {
    // The level can only change outside a transaction; the connection is this call's until it returns.
    const unsynced = deferSync && (await syncsEveryCommit(ctx.db, conn));
    if (!unsynced) return inSqliteTransaction(ctx, conn, now, work, false);
    await sql`PRAGMA synchronous = NORMAL`.execute(conn);
    let outcome: { result: T; scope: WriteScope } | undefined;
    let failure: unknown = null;
    try {
      outcome = await inSqliteTransaction(ctx, conn, now, work, true);
    } catch (error) {
      failure = error;
    }
    await restoreFullSync(conn, failure);
    if (outcome === undefined) throw failure;
    return outcome;
  });
}

/**
 * Back to `synchronous=FULL` after an unsynced transaction. A transaction left open (a ROLLBACK
 * that failed) is rolled back first: the level cannot change inside one. If the level still
 * cannot be restored, the connection would stop syncing every commit: that fails loudly, with
 * the transaction's own error kept as its cause.
 */
async function restoreFullSync(conn: Kysely<Database>, failure: unknown): Promise<void> {
  try {
    await sql`PRAGMA synchronous = FULL`.execute(conn);
  } catch (first) {
    await sql`ROLLBACK`.execute(conn).catch(() => undefined);
    try {
      await sql`PRAGMA synchronous = FULL`.execute(conn);
    } catch (second) {
      throw new Error('[agent-teams/api] could not restore synchronous=FULL after an unsynced commit', {
        cause: failure ?? second ?? first,
      });
    }
  }
}

/** Thrown inside an unsynced transaction that must be synced (`WriteScope.requireSync`): rolls it back. */
class SyncRequired extends Error {
  constructor() {
    super('this transaction must be synced');
    this.name = 'SyncRequired';
  }
}

async function inSqliteTransaction<T>(
  ctx: StoreContext,
  conn: Kysely<Database>,
  now: string,
  work: (scope: WriteScope) => Promise<T>,
  unsynced: boolean,
): Promise<{ result: T; scope: WriteScope }> {
  await sql`BEGIN IMMEDIATE`.execute(conn);
  const scope = new WriteScope(conn, ctx, now);
  try {
    const result = await work(scope);
    await scope.events.flush();
    if (unsynced && scope.syncRequired) throw new SyncRequired();
    await sql`COMMIT`.execute(conn);
    // Inside the connection: no other transaction can claim a ride this one still holds.
    scope.endRides(null);
    return { result, scope };
  } catch (error) {
    // A failed COMMIT may already have ended the transaction; the original error is what matters.
    await sql`ROLLBACK`.execute(conn).catch(() => undefined);
    scope.endRides(error);
    throw error;
  }
}

/** `PRAGMA synchronous` of each SQLite handle, read once: it is set when the file is opened. */
const syncLevels = new WeakMap<Kysely<Database>, number>();

/** True when the handle syncs the log inside every COMMIT (`synchronous=FULL`, the default). */
async function syncsEveryCommit(db: Kysely<Database>, conn: Kysely<Database>): Promise<boolean> {
  let level = syncLevels.get(db);
  if (level === undefined) {
    const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(conn);
    level = Number(rows[0]?.synchronous ?? 0);
    syncLevels.set(db, level);
  }
  return level === FULL_SYNC;
}
