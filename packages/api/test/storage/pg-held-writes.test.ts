import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverErrorKind, StorageError } from '../../src/storage/driver-errors.js';
import { blamed, pgHeld, writeThenCheck } from '../../src/storage/pg-held-connection.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { heldOf, insertProbe, openProbeDatabase, type ProbeDatabase, storedProbe } from '../support/pg-probe.js';
import { tripsOf } from '../support/pg-round-trips.js';

// Writes a PostgreSQL transaction sends and leaves to be checked before its commit
// (`pg-held-connection.ts`): what they save, and that every failure still is what it was.

const NOW = '2026-12-07T00:00:00.000Z';
let probe: ProbeDatabase;
beforeAll(async () => {
  probe = await openProbeDatabase('agent_teams_held_writes');
}, 60_000);
afterAll(() => probe?.close());

describe('writes left to be checked before the commit (PostgreSQL)', () => {
  it('go with the statement after them, which sees what they wrote; BEGIN goes with the first read', async () => {
    const since = probe.trips.mark();
    const seen = await runWrite(probe.ctx, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await insertProbe(scope, 'a', 7);
      await insertProbe(scope, 'b', 8);
      const { rows } = await held.run<{ n: number }>('select sum(n)::int as n from probe where id in ($1, $2)', [
        'a',
        'b',
      ]);
      return rows[0]?.n;
    });
    expect(seen).toBe(15);
    expect(await storedProbe(probe.database, 'b')).toBe(8);
    const [transaction] = probe.trips.transactions(since);
    if (transaction === undefined) throw new Error('no transaction recorded');
    // BEGIN + select 1; both inserts + the sum; COMMIT (awaited one by one: six).
    expect(transaction.map((statement) => statement.text)).toHaveLength(6);
    expect(tripsOf(transaction)).toBe(3);
  });

  it('roll everything back when a check fails, and fail with that check though statements followed', async () => {
    const failed = runWrite(probe.ctx, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await writeThenCheck(
        scope.trx,
        () => held.run('update probe set n = 0 where id = $1', ['missing']),
        (result) => {
          if (result.numAffectedRows !== 1n) throw new Error('the probe is gone');
        },
      );
      await insertProbe(scope, 'after-check');
      await held.run('select 1', []);
    });
    await expect(failed).rejects.toThrow('the probe is gone');
    expect(await storedProbe(probe.database, 'after-check')).toBeUndefined();
  });

  it('fail with the statement that aborted the transaction, not the one after it, and retry it as such', async () => {
    await runWrite(probe.ctx, NOW, async (scope) => insertProbe(scope, 'taken'));
    const failed = runWrite(probe.ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await insertProbe(scope, 'taken');
      // Sent after the insert failed: PostgreSQL answers "current transaction is aborted".
      await heldOf(scope).run('select 1', []);
    });
    const error = await failed.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    let attempts = 0;
    await runWrite(
      probe.ctx,
      NOW,
      async (scope) => {
        attempts += 1;
        await heldOf(scope).run('select 1', []);
        await insertProbe(scope, attempts === 1 ? 'taken' : 'retried');
        await heldOf(scope).run('select 1', []);
      },
      { retryOnUniqueViolation: true },
    );
    expect(attempts).toBe(2);
    expect(await storedProbe(probe.database, 'retried')).toBe(1);
  });

  it('fail as the work that sent them says (blamed), wherever the failure shows', async () => {
    class Blamed extends Error {}
    const failed = runWrite(probe.ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await blamed(
        scope.trx,
        (error) => new Blamed('the probe write failed', { cause: error }),
        () => insertProbe(scope, 'taken'),
      );
      await heldOf(scope).run('select 1', []);
    });
    await expect(failed).rejects.toBeInstanceOf(Blamed);
  });

  it('fail with the connection when the server ends it mid-transaction, lose nothing unhandled, and the pool goes on', async () => {
    const killer = new pg.Client({ connectionString: probe.fresh.url });
    await killer.connect();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failed = runWrite(probe.ctx, NOW, async (scope) => {
        const held = heldOf(scope);
        const { rows } = await held.run<{ pid: number }>('select pg_backend_pid() as pid', []);
        await insertProbe(scope, 'killed-1');
        await killer.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        // Sent on a connection the server ended: every write left and this read fail.
        await insertProbe(scope, 'killed-2');
        await held.run('select 1', []);
      });
      await expect(failed).rejects.toThrow();
      expect(await storedProbe(probe.database, 'killed-1')).toBeUndefined();
      expect(await storedProbe(probe.database, 'killed-2')).toBeUndefined();
      // The pool drops the broken connection: the next writes commit on fresh ones.
      for (const id of ['after-kill-1', 'after-kill-2', 'after-kill-3']) {
        await runWrite(probe.ctx, NOW, async (scope) => {
          await heldOf(scope).run('select 1', []);
          await insertProbe(scope, id);
        });
        expect(await storedProbe(probe.database, id)).toBe(1);
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
      probe.database.db,
      () => sql`select 1`.execute(probe.database.db),
      () => {
        checked = true;
      },
    );
    expect(checked).toBe(true);
    expect(pgHeld(probe.database.db)).toBeUndefined();
  });
});
