import {
  DomainError,
  type EventSink,
  type IdGenerator,
  Limits,
  type Member,
  notFound,
  type RecordMessage,
  type TeamId,
} from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import type { EnqueueAdmission } from './admission-ride.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database, TeamsTable } from './database-types.js';
import { classifyDriverError, DriverErrorKind, StorageError } from './driver-errors.js';
import type { DatabaseDialect } from './open-database.js';
import { blamed, holdPgConnection, type PgHeldConnection, pgHeld } from './pg-held-connection.js';
import { RUN_ALREADY_ENDED, ServerRefusedError } from './pg-server-check.js';
import { recentRecords } from './record-reads.js';
import { type HeldRide, RideLostError, type RunRides } from './run-rides.js';
import { writeBatchOf } from './sqlite-write-batch.js';
import { TeamEventWriter } from './team-event-writer.js';
import { listMembers } from './team-reads.js';

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
  /** The scheduler's admission that may ride a local enqueue (`admission-ride.ts`; absent: none). */
  readonly admission?: () => EnqueueAdmission | null;
}

/** A team row by id (SQLite: the write lock is held already). Compiled once (`compiled-statement.ts`). */
const TEAM_BY_ID = new CompiledStatement(1, (db, teamId: string) =>
  db.selectFrom('teams').selectAll().where('id', '=', teamId),
);
/** A team row by id, locked (PostgreSQL). */
const TEAM_FOR_UPDATE = new CompiledStatement(1, (db, teamId: string) =>
  db.selectFrom('teams').selectAll().where('id', '=', teamId).forUpdate(),
);

/** A team row by id, locked unless another transaction holds it (PostgreSQL; a ridden admission). */
const TEAM_FOR_UPDATE_IF_FREE = new CompiledStatement(1, (db, teamId: string) =>
  db.selectFrom('teams').selectAll().where('id', '=', teamId).forUpdate().skipLocked(),
);

/** One write transaction: the transactional handle, the caller's `now`, and its event writer. */
export class WriteScope {
  readonly events: TeamEventWriter;

  readonly dialect: DatabaseDialect;
  readonly ids: Pick<IdGenerator, 'recordId'> | null;
  readonly #rides: RunRides | null;
  readonly #held: HeldRide[] = [];
  readonly #carriedBefore: ReadonlySet<string>;

  /**
   * @param carriedBefore the runs whose end an earlier write of the same transaction wrote
   * (`sqlite-write-batch.ts`): this write finds them written, as it would after their commit.
   */
  constructor(
    readonly trx: Kysely<Database>,
    ctx: StoreContext,
    readonly now: string,
    carriedBefore: ReadonlySet<string> = new Set(),
  ) {
    this.dialect = ctx.dialect;
    this.ids = ctx.ids;
    this.#rides = ctx.rides ?? null;
    this.#carriedBefore = carriedBefore;
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
    // Held by an earlier write of this transaction, which wrote it: waiting for that hold to end
    // would wait for this transaction's own COMMIT.
    if (this.#carriedBefore.has(runId)) return false;
    const ride = await this.#rides?.claim(runId, decided);
    if (ride === undefined) return false;
    this.#held.push(ride);
    let wrote: boolean;
    // Its own write failed: told once, whether it failed here or, left to be checked later, at the
    // commit (a left write's failure also fails the awaited statements after it).
    let told = false;
    let lost = false;
    const failed = (error: unknown) => {
      // Left to the server on PostgreSQL, a run another execution ended fails its statement
      // (`rideWritesLeft`): the ride is lost, not failed, and what failed after it follows from it.
      if (error instanceof ServerRefusedError && error.check === RUN_ALREADY_ENDED) {
        lost = true;
        return new RideLostError(runId);
      }
      if (!told && !lost) this.#rides?.failed(ride);
      told = true;
      return lost ? new RideLostError(runId) : error;
    };
    const held = pgHeld(this.trx);
    const write = () => ride.write(this.trx, this.now);
    try {
      wrote = await blamed(this.trx, failed, held === undefined ? write : () => held.carryingRide(write));
    } catch (error) {
      throw failed(error);
    }
    if (!wrote) throw new RideLostError(runId);
    return true;
  }

  /** The runs whose end this write carried. */
  carriedRuns(): string[] {
    return this.#held.map((ride) => ride.runId);
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
    const [team] = await (this.dialect === 'postgres' ? TEAM_FOR_UPDATE : TEAM_BY_ID).rows(this.trx, teamId);
    return team;
  }

  /**
   * Like {@link lockTeam}, but never waits on PostgreSQL: undefined when another transaction holds
   * the team's row (this transaction's own lock does not count).
   */
  async lockTeamIfFree(teamId: TeamId): Promise<Selectable<TeamsTable> | undefined> {
    if (this.dialect !== 'postgres') return this.lockTeam(teamId);
    const [team] = await TEAM_FOR_UPDATE_IF_FREE.rows(this.trx, teamId);
    return team;
  }

  /**
   * The roster of a team whose lock this transaction holds, in roster order; noted with the
   * commit's rows (`CommittedRows.members`), so the live views of its events need not read them.
   * Read once per write: under the lock only this write changes the team's members, and each of
   * its member writes says so (`CommittedRowNotes.rosterChanged`), so the enqueue and the
   * admission riding it share one read.
   */
  async roster(teamId: TeamId): Promise<Member[]> {
    const noted = this.events.rows.roster(teamId);
    if (noted !== undefined) return [...noted];
    const members = await listMembers(this.trx, [teamId]);
    this.events.rows.noteRoster(teamId, members);
    return [...members];
  }

  /**
   * The newest `Limits.contextMessages` records of a team whose lock this transaction holds,
   * oldest first, read once per write: an admission freezing several jobs of one team (a request
   * to every member) shares one read and one list, until this write appends a record to the team
   * (`appendRecord` notes it, and the list is read again).
   */
  async recentRecords(teamId: TeamId): Promise<readonly RecordMessage[]> {
    const noted = this.events.rows.recentRecords(teamId);
    if (noted !== undefined) return noted;
    const records: readonly RecordMessage[] = await recentRecords(this.trx, teamId, Limits.contextMessages);
    this.events.rows.noteRecentRecords(teamId, records);
    return records;
  }

  /** Like {@link lockTeam}, scoped to an owner: NOT_FOUND for an absent or another owner's team. */
  async lockOwnedTeam(owner: string, teamId: TeamId): Promise<Selectable<TeamsTable>> {
    const team = await this.lockTeam(teamId);
    if (team === undefined || team.owner !== owner) throw notFound('team');
    return team;
  }
}

/**
 * Runs `work` in one write transaction and publishes its events after COMMIT (never before, never
 * after a rollback).
 *
 * @remarks SQLite: `BEGIN IMMEDIATE` on the driver's single connection (Kysely's own transaction
 * issues a deferred `BEGIN`, which can fail with SQLITE_BUSY at the first write instead of
 * waiting at the start), shared by the writes queued together, each in its own savepoint
 * (`sqlite-write-batch.ts`, decision 0224). PostgreSQL: Kysely's transaction at READ COMMITTED
 * plus row locks.
 * Retryable conditions (busy, serialization failure, deadlock) run `work` again from the start;
 * with `retryOnUniqueViolation`, so does a unique violation, so `work` re-reads the row another
 * server inserted first; with `retryOnLostRide`, so does a `RideLostError` (`run-rides.ts`).
 */
export async function runWrite<T>(
  ctx: StoreContext,
  now: string,
  work: (scope: WriteScope) => Promise<T>,
  opts: {
    readonly retryOnUniqueViolation?: boolean;
    readonly retryOnLostRide?: boolean;
    /** An attempt's failure to run again whatever its kind: `work` decides what the next attempt does otherwise. */
    readonly retryIf?: (error: unknown) => boolean;
    /**
     * The write has no small bound on the pages it changes (a team's deletion): on SQLite it runs
     * in a transaction of its own with temporary files on disk (`sqlite-write-batch.ts`).
     */
    readonly large?: boolean;
    /** Told right after COMMIT (`committed`) and once the events were published (`published`). */
    readonly around?: { readonly committed: () => void; readonly published: () => void };
  } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { result, scope } = await runOnce(ctx, now, work, opts.large === true);
      try {
        opts.around?.committed();
        if (ctx.sink !== null && scope.events.events.length > 0)
          ctx.sink.published(scope.events.events, scope.events.rows);
      } finally {
        opts.around?.published();
      }
      return result;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (attempt < MAX_ATTEMPTS && opts.retryIf?.(error) === true) continue;
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
  large: boolean,
): Promise<{ result: T; scope: WriteScope }> {
  if (ctx.dialect === 'postgres') {
    let scope: WriteScope | null = null;
    let held: PgHeldConnection | null = null;
    try {
      const done = await ctx.db.transaction().execute(async (trx) => {
        scope = new WriteScope(trx, ctx, now);
        held = await holdPgConnection(ctx.db, trx);
        try {
          const result = await work(scope);
          // The events follow the writes sent and left on the wire. Those checked here must have
          // answered, and passed, before the COMMIT; those the server checks go with it.
          await scope.events.flush();
          await held?.settleForCommit();
          return { result, scope };
        } catch (error) {
          // A write sent and left that failed aborted the transaction: its error is the cause.
          throw (await held?.firstFailure())?.error ?? error;
        }
      });
      // The COMMIT answered COMMIT, so each statement before it succeeded (its rides are written);
      // what their answers note (a record's seq, the events' seqs) is in once all have settled.
      done.scope.endRides(null);
      await (held as PgHeldConnection | null)?.settle();
      return done;
    } catch (thrown) {
      // A statement the server checked failed, and the COMMIT answered ROLLBACK: its error is the cause.
      const error = (await (held as PgHeldConnection | null)?.firstFailure())?.error ?? thrown;
      (scope as WriteScope | null)?.endRides(error);
      throw error;
    }
  }
  // SQLite: the writes queued in one turn of the event loop share one transaction (decision 0224).
  return writeBatchOf(ctx.db).run(ctx, now, work, large);
}
