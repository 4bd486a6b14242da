import { type Kysely, Migrator } from 'kysely';
import type { Database } from './database-types.js';
import { StaticMigrationProvider } from './migrations/index.js';
import type { DatabaseDialect } from './open-database.js';

/**
 * Applies every pending migration, in order, and returns the names applied now.
 *
 * @remarks Kysely's migrator takes a lock table, so several PostgreSQL servers starting at once
 * migrate exactly once.
 * @throws the migration's error (the failed migration is rolled back).
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: DatabaseDialect): Promise<readonly string[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`[agent-teams/api] database migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
