import type { Driver, SqliteDialectConfig } from 'kysely';
import { SqliteDialect, SqliteDriver } from 'kysely';
import type { WalSync } from './sqlite-wal-sync.js';

/**
 * Kysely's SQLite dialect with group commit ({@link WalSync}): the single connection is released
 * first, so the next transaction can commit while the log syncs, then the query's caller waits
 * until every commit so far is on disk. Every query answers only after that, reads included: a
 * read may have seen a commit that is not durable yet.
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

  constructor(config: SqliteDialectConfig, sync: WalSync) {
    super(config);
    this.#sync = sync;
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    await this.#sync.durable();
  }

  override async destroy(): Promise<void> {
    await this.#sync.close();
    await super.destroy();
  }
}
