import { type Kysely, Migrator, sql } from 'kysely';
import type { Database } from '../storage/database-types.js';
import { StaticMigrationProvider } from '../storage/migrations/index.js';
import type { DatabaseDialect } from '../storage/open-database.js';

/** How long `/ready` waits for the database before calling it unreachable. */
export const READY_DATABASE_TIMEOUT_MS = 2_000;

/** What `/ready` checks: the database, its migrations, the scheduler. */
export interface ReadinessDeps {
  readonly database: { readonly db: Kysely<Database>; readonly dialect: DatabaseDialect } | null;
  /** True between the scheduler's start and its stop (or always, when there is no scheduler by choice). */
  readonly schedulerRunning: () => boolean;
}

/** The answer of `/ready`: each check, and whether all passed. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly database: 'ok' | 'unreachable';
    readonly migrations: 'ok' | 'pending' | 'unknown';
    readonly scheduler: 'running' | 'stopped';
  };
}

/** Rejects after `ms` unless `work` settles first. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Checks readiness: the database answers `SELECT 1` (within {@link READY_DATABASE_TIMEOUT_MS}),
 * every migration this build knows is applied, and the scheduler runs.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  let database: Readiness['checks']['database'] = 'ok';
  let migrations: Readiness['checks']['migrations'] = 'ok';
  if (deps.database) {
    const { db, dialect } = deps.database;
    try {
      await within(sql`SELECT 1`.execute(db), READY_DATABASE_TIMEOUT_MS);
      const known = await within(
        new Migrator({ db, provider: new StaticMigrationProvider(dialect) }).getMigrations(),
        READY_DATABASE_TIMEOUT_MS,
      );
      migrations = known.every((migration) => migration.executedAt !== undefined) ? 'ok' : 'pending';
    } catch {
      database = 'unreachable';
      migrations = 'unknown';
    }
  }
  const scheduler = deps.schedulerRunning() ? 'running' : 'stopped';
  return {
    ready: database === 'ok' && migrations === 'ok' && scheduler === 'running',
    checks: { database, migrations, scheduler },
  };
}
