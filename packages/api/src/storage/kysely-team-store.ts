import type { EventSink, IdGenerator, TeamStore } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { EnqueueAdmission } from './admission-ride.js';
import type { Database } from './database-types.js';
import { KyselyTeamworkRoles } from './kysely-store-teamwork-roles.js';
import { migrateToLatest } from './migrate.js';
import { type DatabaseDialect, type OpenDatabaseOptions, openDatabase } from './open-database.js';
import type { RunRides } from './run-rides.js';

/** Options of {@link KyselyTeamStore}. */
export interface KyselyTeamStoreOptions {
  /** Told about committed events (live subscriptions, the scheduler's wake-up). */
  readonly events?: EventSink;
  /**
   * Mints the ids of record messages the store appends for APPEND_RECORD effects; share the
   * core's. Without it the id is derived from the job (`record_<job id>_<kind>`).
   */
  readonly ids?: Pick<IdGenerator, 'recordId'>;
  /**
   * What `close()` releases. By default nothing: whoever opened the database closes it (the
   * composition root shares it with the runtimes). {@link KyselyTeamStore.open} passes the close
   * of the database it opened.
   */
  readonly close?: () => Promise<void>;
  /** Final writes of ended runs, committed with the job write that records the run (`run-rides.ts`). */
  readonly rides?: RunRides;
  /**
   * The scheduler's admission, offered to ride each local enqueue (`admission-ride.ts`, decision
   * 0223); asked at every enqueue, since the scheduler is built after the store.
   */
  readonly admission?: () => EnqueueAdmission | null;
}

/**
 * The {@link TeamStore} over Kysely, one implementation for SQLite and PostgreSQL: every role in
 * one object (the roles are split by what they hold: `kysely-store-team-roles.ts`,
 * `kysely-store-job-roles.ts`, `kysely-store-teamwork-roles.ts`), each method a thin entry into the
 * module of its role (`team-writes.ts`, `job-reads.ts`, `admission.ts`, `job-leases.ts`, ...).
 *
 * @remarks Each write method is one transaction (row locks on PostgreSQL); on SQLite one
 * `BEGIN IMMEDIATE` transaction, or one savepoint of a transaction shared with the writes that
 * arrived with it (`sqlite-write-batch.ts`, decision 0224). See `write-transaction.ts`.
 */
export class KyselyTeamStore extends KyselyTeamworkRoles implements TeamStore {
  readonly #close: () => Promise<void>;

  constructor(db: Kysely<Database>, dialect: DatabaseDialect, opts: KyselyTeamStoreOptions = {}) {
    super({
      db,
      dialect,
      sink: opts.events ?? null,
      ids: opts.ids ?? null,
      rides: opts.rides ?? null,
      ...(opts.admission ? { admission: opts.admission } : {}),
    });
    this.#close = opts.close ?? (async () => undefined);
  }

  /** Opens `target` (file, `:memory:` or PostgreSQL URL), migrates it, and wraps it in a store. */
  static async open(target: string, opts: KyselyTeamStoreOptions & OpenDatabaseOptions = {}): Promise<KyselyTeamStore> {
    const database = await openDatabase(target, opts);
    try {
      await migrateToLatest(database.db, database.dialect);
    } catch (error) {
      await database.close();
      throw error;
    }
    return new KyselyTeamStore(database.db, database.dialect, { ...opts, close: database.close });
  }

  close(): Promise<void> {
    return this.#close();
  }
}
