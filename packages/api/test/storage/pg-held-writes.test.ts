import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverErrorKind, StorageError } from '../../src/storage/driver-errors.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { blamed, type PgHeldConnection, pgHeld, writeThenCheck } from '../../src/storage/pg-held-connection.js';
import { runWrite, type StoreContext, type WriteScope } from '../../src/storage/write-transaction.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { type RoundTripRecorder, recordRoundTrips, tripsOf } from '../support/pg-round-trips.js';

// Writes a PostgreSQL transaction sends and leaves to be checked before its commit
// (`pg-held-connection.ts`): what they save, and that every failure still is what it was.

let fresh: FreshPostgres;
let database: OpenedDatabase;
let ctx: StoreContext;
let trips: RoundTripRecorder;
const NOW = '2026-12-07T00:00:00.000Z';

beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_held_writes');
  trips = recordRoundTrips();
  database = await openDatabase(fresh.url, { poolSize: 2 });
  await sql`create table probe (id text primary key, n int not null)`.execute(database.db);
  ctx = { db: database.db, dialect: 'postgres', sink: null, ids: null };
}, 60_000);
afterAll(async () => {
  trips?.stop();
  await database?.close();
  await fresh?.drop();
});

function heldOf(scope: WriteScope): PgHeldConnection {
  const held = pgHeld(scope.trx);
  if (held === undefined) throw new Error('the transaction holds no connection');
  return held;
}

/** A write of `id` left to be checked: it must insert one row. */
function insertLeft(scope: WriteScope, id: string, n = 1): Promise<void> {
  const held = heldOf(scope);
  return writeThenCheck(
    scope.trx,
    () => held.run('insert into probe (id, n) values ($1, $2)', [id, n]),
    (result) => {
      if (result.numAffectedRows !== 1n) throw new Error(`probe ${id} not inserted`);
    },
  );
}

async function stored(id: string): Promise<number | undefined> {
  const { rows } = await sql<{ n: number }>`select n from probe where id = ${id}`.execute(database.db);
  return rows[0]?.n;
}

describe('writes left to be checked before the commit (PostgreSQL)', () => {
  it('go with the statement after them, which sees what they wrote; BEGIN goes with the first read', async () => {
    const since = trips.mark();
    const seen = await runWrite(ctx, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await insertLeft(scope, 'a', 7);
      await insertLeft(scope, 'b', 8);
      const { rows } = await held.run<{ n: number }>('select sum(n)::int as n from probe where id in ($1, $2)', [
        'a',
        'b',
      ]);
      return rows[0]?.n;
    });
    expect(seen).toBe(15);
    expect(await stored('b')).toBe(8);
    const [transaction] = trips.transactions(since);
    if (transaction === undefined) throw new Error('no transaction recorded');
    // BEGIN + select 1; both inserts + the sum; COMMIT (awaited one by one: six).
    expect(transaction.map((statement) => statement.text)).toHaveLength(6);
    expect(tripsOf(transaction)).toBe(3);
  });

  it('roll everything back when a check fails, and fail with that check though statements followed', async () => {
    const failed = runWrite(ctx, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await writeThenCheck(
        scope.trx,
        () => held.run('update probe set n = 0 where id = $1', ['missing']),
        (result) => {
          if (result.numAffectedRows !== 1n) throw new Error('the probe is gone');
        },
      );
      await insertLeft(scope, 'after-check');
      await held.run('select 1', []);
    });
    await expect(failed).rejects.toThrow('the probe is gone');
    expect(await stored('after-check')).toBeUndefined();
  });

  it('fail with the statement that aborted the transaction, not the one after it, and retry it as such', async () => {
    await runWrite(ctx, NOW, async (scope) => insertLeft(scope, 'taken'));
    const failed = runWrite(ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await insertLeft(scope, 'taken');
      // Sent after the insert failed: PostgreSQL answers "current transaction is aborted".
      await heldOf(scope).run('select 1', []);
    });
    const error = await failed.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    let attempts = 0;
    await runWrite(
      ctx,
      NOW,
      async (scope) => {
        attempts += 1;
        await heldOf(scope).run('select 1', []);
        await insertLeft(scope, attempts === 1 ? 'taken' : 'retried');
        await heldOf(scope).run('select 1', []);
      },
      { retryOnUniqueViolation: true },
    );
    expect(attempts).toBe(2);
    expect(await stored('retried')).toBe(1);
  });

  it('fail as the work that sent them says (blamed), wherever the failure shows', async () => {
    class Blamed extends Error {}
    const failed = runWrite(ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await blamed(
        scope.trx,
        (error) => new Blamed('the probe write failed', { cause: error }),
        () => insertLeft(scope, 'taken'),
      );
      await heldOf(scope).run('select 1', []);
    });
    await expect(failed).rejects.toBeInstanceOf(Blamed);
  });

  it('fail with the connection when the server ends it mid-transaction, lose nothing unhandled, and the pool goes on', async () => {
    const killer = new pg.Client({ connectionString: fresh.url });
    await killer.connect();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failed = runWrite(ctx, NOW, async (scope) => {
        const held = heldOf(scope);
        const { rows } = await held.run<{ pid: number }>('select pg_backend_pid() as pid', []);
        await insertLeft(scope, 'killed-1');
        await killer.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        // Sent on a connection the server ended: every write left and this read fail.
        await insertLeft(scope, 'killed-2');
        await held.run('select 1', []);
      });
      await expect(failed).rejects.toThrow();
      expect(await stored('killed-1')).toBeUndefined();
      expect(await stored('killed-2')).toBeUndefined();
      // The pool drops the broken connection: the next writes commit on fresh ones.
      for (const id of ['after-kill-1', 'after-kill-2', 'after-kill-3']) {
        await runWrite(ctx, NOW, async (scope) => {
          await heldOf(scope).run('select 1', []);
          await insertLeft(scope, id);
        });
        expect(await stored(id)).toBe(1);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await killer.end();
    }
  });

  it('are checked at once where no connection is held (outside a write)', async () => {
    let checked = false;
    await writeThenCheck(
      database.db,
      () => sql`select 1`.execute(database.db),
      () => {
        checked = true;
      },
    );
    expect(checked).toBe(true);
    expect(pgHeld(database.db)).toBeUndefined();
  });
});
