import { type Kysely, Migrator, sql } from 'kysely';
import { DatabaseNewerError } from './database-newer-error.js';
import type { Database } from './database-types.js';
import { StaticMigrationProvider } from './migrations/index.js';
import type { DatabaseDialect } from './open-database.js';

/**
 * Applies every pending migration, in order, and returns the names applied now.
 *
 * @remarks Kysely's migrator takes a lock table, so several PostgreSQL servers starting at once
 * migrate exactly once. On SQLite the migrations run with temporary files on disk: a server keeps
 * them in memory (decision 0234), where building an index over every job would sort every key.
 * @throws DatabaseNewerError when the database holds migrations this build does not know (nothing
 * is migrated); the migration's error otherwise (the failed migration is rolled back).
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: DatabaseDialect): Promise<readonly string[]> {
  if (dialect === 'sqlite') return withTempFilesOnDisk(db, () => migrate(db, dialect));
  return migrate(db, dialect);
}

/**
 * Runs `work` (outside any transaction: SQLite refuses the change inside one) with SQLite's
 * temporary files on disk, then puts back the setting it found.
 */
export async function withTempFilesOnDisk<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  const found = await sql<{ temp_store: number }>`PRAGMA temp_store`.execute(db);
  const before = Number(found.rows[0]?.temp_store ?? 0);
  await sql`PRAGMA temp_store = FILE`.execute(db);
  try {
    return await work();
  } finally {
    // 0 DEFAULT, 1 FILE, 2 MEMORY: a literal, since a PRAGMA takes no bound value.
    await sql.raw(`PRAGMA temp_store = ${before}`).execute(db);
  }
}

/** Kysely's table of applied migrations (its default name). */
const MIGRATION_TABLE = 'kysely_migration';

/** A count read back. */
type Found = { found: number };

/** The names of the migrations applied to the database so far (none before the first start). */
async function appliedMigrations(db: Kysely<Database>, dialect: DatabaseDialect): Promise<string[]> {
  const exists =
    dialect === 'sqlite'
      ? sql<Found>`select count(*) as found from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`
      : sql<Found>`select count(*)::int as found from pg_tables
          where schemaname = current_schema() and tablename = ${MIGRATION_TABLE}`;
  const [row] = (await exists.execute(db)).rows;
  if (Number(row?.found ?? 0) === 0) return [];
  const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
  return applied.rows.map((entry) => entry.name);
}

async function migrate(db: Kysely<Database>, dialect: DatabaseDialect): Promise<readonly string[]> {
  const provider = new StaticMigrationProvider(dialect);
  const known = Object.keys(await provider.getMigrations());
  // A newer build's migrations: Kysely's migrator would fail with "corrupted migrations"; say why.
  const unknown = (await appliedMigrations(db, dialect)).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new DatabaseNewerError(unknown, known.at(-1) ?? 'none');
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`[agent-teams/api] database migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
