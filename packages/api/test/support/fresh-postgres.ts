import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

/**
 * The server where tests may `CREATE DATABASE`. `.ci/run` points it at the database it created
 * for the run; locally it is the machine's PostgreSQL with trust auth.
 */
export const POSTGRES_ADMIN_URL =
  process.env.AGENT_TEAMS_TEST_PG_ADMIN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database made for one test file, dropped by {@link FreshPostgres.drop}. */
export interface FreshPostgres {
  /** Its `postgres://` URL. */
  readonly url: string;
  readonly name: string;
  /** Drops it, closing whatever connections are left (`WITH (FORCE)`). */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    // Fails, never skips: a skipped PostgreSQL suite would let the multi-server mode rot unnoticed.
    throw new Error(
      `PostgreSQL is required for this suite and is unreachable at ${POSTGRES_ADMIN_URL} ` +
        '(start it, or point AGENT_TEAMS_TEST_PG_ADMIN at a server where the user may CREATE DATABASE)',
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database named `<prefix>_<random>` and, unless `migrate` is false, applies
 * every migration. Throws when PostgreSQL is unreachable.
 */
export async function createFreshPostgres(prefix: string, opts: { migrate?: boolean } = {}): Promise<FreshPostgres> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  if (opts.migrate !== false) {
    const database = await openDatabase(url.toString());
    try {
      await migrateToLatest(database.db, database.dialect);
    } finally {
      await database.close();
    }
  }
  return {
    url: url.toString(),
    name,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Empties every table the store contract writes and resets the scheduler's round, so each
 * contract test's ids start again at 1 on one migrated database.
 */
export async function emptyContractTables(db: Kysely<Database>): Promise<void> {
  await sql`TRUNCATE teams, members, jobs, record_messages, team_events, conversation_messages, runtime_runs, openai_messages, model_usage, server_leases, team_deletions, team_budgets, spend_reservations RESTART IDENTITY CASCADE`.execute(
    db,
  );
  await db
    .updateTable('scheduler_state')
    .set({ round_json: JSON.stringify({ rotation: [], served: [] }), updated_at: null })
    .execute();
}
