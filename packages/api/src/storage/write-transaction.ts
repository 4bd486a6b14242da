import { DomainError, type EventSink, type IdGenerator, notFound, type TeamId } from '@agent-teams/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, TeamsTable } from './database-types.js';
import { classifyDriverError, DriverErrorKind, StorageError } from './driver-errors.js';
import type { DatabaseDialect } from './open-database.js';
import { TeamEventWriter } from './team-event-writer.js';

/** How many times a transaction is tried when the database asks for a retry. */
const MAX_ATTEMPTS = 5;

/** The store's handle on its database. */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  readonly sink: EventSink | null;
  /** Mints ids of the record messages effects append; null: ids derived from the job. */
  readonly ids: Pick<IdGenerator, 'recordId'> | null;
}

/** One write transaction: the transactional handle, the caller's `now`, and its event writer. */
export class WriteScope {
  readonly events: TeamEventWriter;

  readonly dialect: DatabaseDialect;
  readonly ids: Pick<IdGenerator, 'recordId'> | null;

  constructor(
    readonly trx: Kysely<Database>,
    ctx: StoreContext,
    readonly now: string,
  ) {
    this.dialect = ctx.dialect;
    this.ids = ctx.ids;
    this.events = new TeamEventWriter(trx, now, ctx.dialect);
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

/**
 * Runs `work` in one write transaction and publishes its events after COMMIT (never before, never
 * after a rollback).
 *
 * @remarks SQLite: `BEGIN IMMEDIATE` on the driver's single connection (Kysely's own transaction
 * issues a deferred `BEGIN`, which can fail with SQLITE_BUSY at the first write instead of
 * waiting at the start). PostgreSQL: Kysely's transaction at READ COMMITTED plus row locks.
 * Retryable conditions (busy, serialization failure, deadlock) run `work` again from the start;
 * with `retryOnUniqueViolation`, so does a unique violation, so `work` re-reads the row another
 * server inserted first.
 */
export async function runWrite<T>(
  ctx: StoreContext,
  now: string,
  work: (scope: WriteScope) => Promise<T>,
  opts: { readonly retryOnUniqueViolation?: boolean } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { result, scope } = await runOnce(ctx, now, work);
      if (ctx.sink !== null && scope.events.events.length > 0) ctx.sink.published(scope.events.events);
      return result;
    } catch (error) {
      if (error instanceof DomainError) throw error;
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
): Promise<{ result: T; scope: WriteScope }> {
  if (ctx.dialect === 'postgres') {
    return ctx.db.transaction().execute(async (trx) => {
      const scope = new WriteScope(trx, ctx, now);
      const result = await work(scope);
      await scope.events.flush();
      return { result, scope };
    });
  }
  return ctx.db.connection().execute(async (conn) => {
    await sql`BEGIN IMMEDIATE`.execute(conn);
    try {
      const scope = new WriteScope(conn, ctx, now);
      const result = await work(scope);
      await scope.events.flush();
      await sql`COMMIT`.execute(conn);
      return { result, scope };
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; the original error is what matters.
      await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
