import type { DatabaseConnection, Driver, SqliteDialectConfig } from 'kysely';
import { SqliteDialect, SqliteDriver } from 'kysely';
import type { WalSync } from './sqlite-wal-sync.js';

/**
 * Kysely's SQLite dialect with group commit ({@link WalSync}): a use of the connection that
 * committed a write releases the connection first, so the next transaction can commit while the
 * log syncs, then waits until every commit so far is on disk before its caller goes on.
 *
 * @remarks Reads do not wait. A read may therefore see another caller's commit up to one sync
 * (about a millisecond) before it is durable; every flow that acts on what it read writes first
 * (admission, a run's step, a job's completion) and so waits for that sync too, and events are
 * published only after their commit is durable. Only a read-only answer (a GraphQL query) can show
 * such a change early; if the machine loses power inside that window the change is gone, as if
 * never accepted. Making every read wait for the sync in flight cost more than SQLite's own
 * in-COMMIT fsync (measured: docs/benchmarks.md, turn overhead).
 */
export class DurableSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #sync: WalSync;

  constructor(config: SqliteDialectConfig, sync: WalSync) {
    super(config);
    this.#config = config;
    this.#sync = sync;
  }

  override createDriver(): Driver {
    return new DurableSqliteDriver(this.#config, this.#sync);
  }
}

class DurableSqliteDriver extends SqliteDriver {
  readonly #sync: WalSync;
  /** Commits counted when the connection was last acquired (one connection, used by one caller at a time). */
  #commitsAtAcquire = 0;

  constructor(config: SqliteDialectConfig, sync: WalSync) {
    super(config);
    this.#sync = sync;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#commitsAtAcquire = this.#sync.stats.commits;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    const committed = this.#sync.stats.commits > this.#commitsAtAcquire;
    await super.releaseConnection();
    // A writer goes on only once its commit is on disk; a failed sync fails every later query.
    if (committed || this.#sync.failed) await this.#sync.durable();
  }

  override async destroy(): Promise<void> {
    await this.#sync.close();
    await super.destroy();
  }
}
