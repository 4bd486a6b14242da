import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

/**
 * The PostgreSQL server the benchmarks create their databases on (a user that may `CREATE
 * DATABASE`); the same variable `machine-info.ts` reads the server version from.
 */
export const BENCH_POSTGRES_ADMIN =
  process.env.AGENT_TEAMS_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A migrated database made for one benchmark run, dropped by {@link BenchPostgres.drop}. */
export interface BenchPostgres {
  /** Its `postgres://` URL. */
  readonly url: string;
  readonly name: string;
  /** Drops it, closing whatever connections are left (`WITH (FORCE)`). */
  drop(): Promise<void>;
}

/** Runs `work` on a short-lived client of the admin database. */
export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_ADMIN, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    // A PostgreSQL benchmark without PostgreSQL has nothing to report: fail loudly, never skip.
    throw new Error(
      `[agent-teams/bench] PostgreSQL is unreachable at ${BENCH_POSTGRES_ADMIN} (start it, or set AGENT_TEAMS_BENCH_POSTGRES)`,
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
 * Creates an empty database `bench_<label>_<random>` on the bench server and applies every
 * migration once, before any server process opens it.
 */
export async function createBenchPostgres(label: string): Promise<BenchPostgres> {
  const name = `bench_${label}_${randomBytes(5).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`[agent-teams/bench] bad database name ${name}`);
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(BENCH_POSTGRES_ADMIN);
  url.pathname = `/${name}`;
  const drop = () =>
    withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined);
  try {
    const database = await openDatabase(url.toString());
    try {
      await migrateToLatest(database.db, database.dialect);
    } finally {
      await database.close();
    }
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return { url: url.toString(), name, drop };
}
