import { sql } from 'kysely';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { type PgHeldConnection, pgHeld, writeThenCheck } from '../../src/storage/pg-held-connection.js';
import type { StoreContext, WriteScope } from '../../src/storage/write-transaction.js';
import { createFreshPostgres, type FreshPostgres } from './fresh-postgres.js';
import { type RoundTripRecorder, recordRoundTrips } from './pg-round-trips.js';

// A table of the tests of writes left on a held PostgreSQL connection (`pg-held-connection.ts`):
// `probe (id text primary key, n int)`, and the writes and reads they make of it.

/** Creates the probe table in `database`. */
export async function createProbe(database: OpenedDatabase): Promise<void> {
  await sql`create table probe (id text primary key, n int not null)`.execute(database.db);
}

/** The held connection of a PostgreSQL write transaction (fails when it holds none). */
export function heldOf(scope: WriteScope): PgHeldConnection {
  const held = pgHeld(scope.trx);
  if (held === undefined) throw new Error('the transaction holds no connection');
  return held;
}

/**
 * An insert of probe `id` sent and left: checked in Node (it must insert one row), or, when
 * `serverChecked`, by the server alone (a duplicate key fails the statement).
 */
export function insertProbe(scope: WriteScope, id: string, n = 1, serverChecked = false): Promise<void> {
  const held = heldOf(scope);
  return writeThenCheck(
    scope.trx,
    () => held.run('insert into probe (id, n) values ($1, $2)', [id, n]),
    (result) => {
      if (result.numAffectedRows !== 1n) throw new Error(`probe ${id} not inserted`);
    },
    serverChecked,
  );
}

/** Probe `id`'s stored `n` (absent: undefined). */
export async function storedProbe(database: OpenedDatabase, id: string): Promise<number | undefined> {
  const { rows } = await sql<{ n: number }>`select n from probe where id = ${id}`.execute(database.db);
  return rows[0]?.n;
}

/** A fresh PostgreSQL database with the probe table, its round trips recorded (see {@link openProbeDatabase}). */
export interface ProbeDatabase {
  readonly fresh: FreshPostgres;
  readonly database: OpenedDatabase;
  /** A store context over {@link database}, for `runWrite`. */
  readonly ctx: StoreContext;
  readonly trips: RoundTripRecorder;
  /** Stops recording, closes the pool and drops the database. */
  close(): Promise<void>;
}

/** Creates a fresh database named after `prefix`, with the probe table, its round trips recorded. */
export async function openProbeDatabase(prefix: string): Promise<ProbeDatabase> {
  const fresh = await createFreshPostgres(prefix);
  // Before the pool opens: the store's wrappers bind `query` then (`pg-round-trips.ts`).
  const trips = recordRoundTrips();
  const database = await openDatabase(fresh.url, { poolSize: 2 });
  await createProbe(database);
  return {
    fresh,
    database,
    ctx: { db: database.db, dialect: 'postgres', sink: null, ids: null },
    trips,
    async close() {
      trips.stop();
      await database.close();
      await fresh.drop();
    },
  };
}
