import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';
import type { DatabaseDialect } from './open-database.js';
import type { StoreContext } from './write-transaction.js';

/**
 * What every role of the Kysely store shares: its database handle and event sink. The roles are
 * split over a chain of classes by what they hold (teams, jobs, teamwork), each method a thin entry
 * into the module of its role; `KyselyTeamStore` is the last link.
 */
export class KyselyStoreBase {
  protected readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** The Kysely handle, for adapters that own other tables (the runtimes' `runtime_runs`). */
  get db(): Kysely<Database> {
    return this.ctx.db;
  }

  /** Which engine the store runs on. */
  get dialect(): DatabaseDialect {
    return this.ctx.dialect;
  }
}
