import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import type { RunRides } from '../../src/storage/run-rides.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { CommitCounter } from '../support/commit-counter.js';
import {
  CLOCK,
  COMPLETED,
  insertRun,
  jobWrite,
  NOW,
  openRidesDatabase,
  type RidesDialect,
  runKeys,
  transactionsWriting,
} from './run-rides-fixture.js';

/**
 * RunRides carrying run ends: in the job write that takes them (one commit for both), or written
 * alone once their wait is over, flushed, replaced, refused once closed, or held by another write.
 */
function describeRides(dialect: RidesDialect) {
  describe(`RunRides on ${dialect}`, () => {
    let database: OpenedDatabase;
    let cleanup: () => Promise<void>;
    let counter: CommitCounter;
    let db: Kysely<Database>;

    beforeAll(async () => {
      ({ database, cleanup } = await openRidesDatabase(dialect));
    });
    afterAll(async () => cleanup());
    afterEach(async () => {
      await database.db.deleteFrom('runtime_runs').execute();
    });

    /** How many transactions wrote these run rows (`transactionsWriting`). */
    const transactionsOf = (keys: readonly string[]) => transactionsWriting(dialect, database, counter, keys);

    /** Rides over the counted handle, and a job write context sharing them. */
    function open(waitMs: number): { rides: RunRides; ctx: StoreContext } {
      counter = new CommitCounter();
      db = database.db.withPlugin(counter);
      const rides = openRunRides({ db, dialect: database.dialect }, CLOCK, waitMs);
      return { rides, ctx: { db, dialect: database.dialect, sink: null, ids: null, rides } };
    }

    it('commits a run end with the job write that carries it: one commit for both', async () => {
      const { rides, ctx } = open(60_000);
      const ended = rides.offer('run_a', COMPLETED, insertRun('a'));
      expect(rides.stateOf('run_a')).toEqual(COMPLETED);
      expect(await jobWrite(ctx, 'marker', 'run_a')).toBe(true);
      expect(await ended).toBe(true);
      expect(await transactionsOf(['a', 'marker'])).toBe(1);
      expect(await runKeys(db)).toEqual(['a', 'marker']);
      expect(rides.stateOf('run_a')).toBeUndefined();
      // Nothing left to carry: the next write of the job writes only itself.
      expect(await jobWrite(ctx, 'marker2', 'run_a')).toBe(false);
    });

    it('writes a ride alone once its wait is over', async () => {
      const { rides } = open(20);
      expect(await rides.offer('run_b', COMPLETED, insertRun('b'))).toBe(true);
      expect(await runKeys(db)).toEqual(['b']);
      expect(await transactionsOf(['b'])).toBe(1);
    });

    it('offers a ride again when the job write that took it rolled back', async () => {
      const { rides, ctx } = open(60_000);
      const ended = rides.offer('run_d', COMPLETED, insertRun('d'));
      await expect(jobWrite(ctx, 'marker', 'run_d', new Error('boom'))).rejects.toThrow('boom');
      expect(await runKeys(db)).toEqual([]);
      expect(rides.stateOf('run_d')).toEqual(COMPLETED);
      expect(await jobWrite(ctx, 'marker', 'run_d')).toBe(true);
      expect(await ended).toBe(true);
      expect(await runKeys(db)).toEqual(['d', 'marker']);
    });

    it('writes a rolled-back ride alone when its wait ended while it was held', async () => {
      const { rides, ctx } = open(300);
      const ended = rides.offer('run_e', COMPLETED, insertRun('e'));
      let carried = false;
      await expect(
        runWrite(ctx, NOW, async (scope) => {
          carried = await scope.carryRide('run_e');
          await new Promise((resolve) => setTimeout(resolve, 600)); // past the wait, still holding it
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      // It held the ride when the wait ended: the write alone came after its rollback.
      expect(carried).toBe(true);
      expect(await ended).toBe(true);
      expect(await runKeys(db)).toEqual(['e']);
    });

    it('flush writes every offered ride alone', async () => {
      const { rides } = open(60_000);
      const first = rides.offer('run_f', COMPLETED, insertRun('f'));
      const second = rides.offer('run_g', COMPLETED, insertRun('g'));
      await rides.flush();
      expect(await Promise.all([first, second])).toEqual([true, true]);
      expect(await runKeys(db)).toEqual(['f', 'g']);
    });

    it('a second offer of one run replaces the first, which resolves false', async () => {
      const { rides, ctx } = open(60_000);
      const first = rides.offer('run_h', COMPLETED, insertRun('h-first'));
      const second = rides.offer('run_h', COMPLETED, insertRun('h'));
      expect(await first).toBe(false);
      expect(await jobWrite(ctx, 'marker', 'run_h')).toBe(true);
      expect(await second).toBe(true);
      expect(await runKeys(db)).toEqual(['h', 'marker']);
    });

    it('refuses offers once closed', async () => {
      const { rides } = open(10);
      rides.close();
      expect(await rides.offer('run_m', COMPLETED, insertRun('m'))).toBe(false);
      expect(rides.stateOf('run_m')).toBeUndefined();
    });

    it('a write that finds the ride held waits, then finds it committed: the end is written once', async () => {
      const { rides, ctx } = open(60_000);
      const ended = rides.offer('run_i', COMPLETED, insertRun('i'));
      let carried = () => {};
      const holding = new Promise<void>((resolve) => {
        carried = resolve;
      });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = runWrite(ctx, NOW, async (scope) => {
        const wrote = await scope.carryRide('run_i');
        carried();
        await released;
        return wrote;
      });
      await holding;
      // SQLite runs one transaction at a time, so the second waits for the connection; PostgreSQL
      // runs it at once, and its claim waits for the first transaction to end.
      const second = jobWrite(ctx, 'marker', 'run_i');
      if (dialect === 'postgres') {
        // Both transactions open (the second has written its marker and waits in its claim).
        await expect
          .poll(async () => {
            const { rows } = await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
              where datname = current_database() and state = 'idle in transaction'`.execute(database.db);
            return Number(rows[0]?.n);
          })
          .toBe(2);
      }
      release();
      expect(await first).toBe(true);
      expect(await second).toBe(false);
      expect(await ended).toBe(true);
      expect(await runKeys(db)).toEqual(['i', 'marker']);
    });
  });
}

describeRides('sqlite');
describeRides('postgres');
