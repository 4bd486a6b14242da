import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { RIDE_MAX_FAILURES, RideLostError, type RideWrite, type RunRides } from '../../src/storage/run-rides.js';
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
} from './run-rides-fixture.js';

/**
 * RunRides losing run ends: to another execution that ended the run first, to a write alone that
 * found the end lost, or to a write that kept failing; the job writes decided on them roll back once.
 */
function describeRides(dialect: RidesDialect) {
  describe(`RunRides on ${dialect}`, () => {
    let database: OpenedDatabase;
    let cleanup: () => Promise<void>;
    let db: Kysely<Database>;

    beforeAll(async () => {
      ({ database, cleanup } = await openRidesDatabase(dialect));
    });
    afterAll(async () => cleanup());
    afterEach(async () => {
      await database.db.deleteFrom('runtime_runs').execute();
    });

    /** Rides over a counted handle (as in run-rides-carry.test.ts), and a job write context sharing them. */
    function open(waitMs: number): { rides: RunRides; ctx: StoreContext } {
      db = database.db.withPlugin(new CommitCounter());
      const rides = openRunRides({ db, dialect: database.dialect }, CLOCK, waitMs);
      return { rides, ctx: { db, dialect: database.dialect, sink: null, ids: null, rides } };
    }

    it('rolls the job write back when another execution ended the run first', async () => {
      const { rides, ctx } = open(60_000);
      await insertRun('c')(database.db, NOW); // another execution's end
      const ended = rides.offer('run_c', COMPLETED, insertRun('c'));
      await expect(jobWrite(ctx, 'marker', 'run_c')).rejects.toBeInstanceOf(RideLostError);
      expect(await ended).toBe(false);
      expect(await runKeys(db)).toEqual(['c']);
      expect(rides.stateOf('run_c')).toBeUndefined();
    });

    it('voids an end a write alone found lost: the job write decided on it rolls back once', async () => {
      const { rides, ctx } = open(20);
      const voided: string[] = [];
      await insertRun('j')(database.db, NOW); // another execution's end
      const ended = rides.offer('run_j', COMPLETED, insertRun('j'), () => voided.push('run_j'));
      expect(await ended).toBe(false);
      expect(voided).toEqual(['run_j']);
      // A job write decided on the announcement (the scheduler polled it before the loss).
      await expect(jobWrite(ctx, 'marker', 'run_j')).rejects.toBeInstanceOf(RideLostError);
      // Its retry, decided on what is stored, goes through; so would a person's write retried by runWrite.
      expect(await jobWrite(ctx, 'marker', 'run_j')).toBe(false);
      expect(await runKeys(db)).toEqual(['j', 'marker']);
    });

    it("a person's write passes a voided end, and retries past a ride it lost itself", async () => {
      const { rides, ctx } = open(20);
      await insertRun('k')(database.db, NOW);
      expect(await rides.offer('run_k', COMPLETED, insertRun('k'))).toBe(false); // lost by the write alone
      // A cancel is not decided on the run's end: it goes through, and leaves the mark to the scheduler.
      expect(await runWrite(ctx, NOW, (scope) => scope.carryRide('run_k'))).toBe(false);
      await expect(jobWrite(ctx, 'marker', 'run_k')).rejects.toBeInstanceOf(RideLostError);
      // A cancel holding a ride another execution ended: rolled back, retried, committed.
      const { rides: again, ctx: ctx2 } = open(60_000);
      const ended = again.offer('run_k', COMPLETED, insertRun('k'));
      const cancel = runWrite(
        ctx2,
        NOW,
        async (scope) => {
          await insertRun('cancel')(scope.trx, NOW);
          return scope.carryRide('run_k');
        },
        { retryOnLostRide: true },
      );
      expect(await cancel).toBe(false);
      expect(await ended).toBe(false);
      // The scheduler's write, decided on the announcement meanwhile, rolls back once.
      await expect(jobWrite(ctx2, 'marker2', 'run_k')).rejects.toBeInstanceOf(RideLostError);
      expect(await runKeys(db)).toEqual(['cancel', 'k']);
    });

    it(`drops an end whose write failed ${RIDE_MAX_FAILURES} times, and the job writes go on`, async () => {
      const { rides, ctx } = open(60_000);
      const voided: string[] = [];
      const broken: RideWrite = async () => {
        throw new Error('disk on fire');
      };
      const ended = rides.offer('run_l', COMPLETED, broken, () => voided.push('run_l'));
      for (let attempt = 1; attempt <= RIDE_MAX_FAILURES; attempt += 1) {
        await expect(jobWrite(ctx, `marker${attempt}`, 'run_l')).rejects.toThrow('disk on fire');
        expect(voided).toEqual(attempt < RIDE_MAX_FAILURES ? [] : ['run_l']);
      }
      expect(await ended).toBe(false);
      expect(rides.stateOf('run_l')).toBeUndefined();
      // The write decided on the dropped end rolls back once; the next (decided on what is stored) commits.
      await expect(jobWrite(ctx, 'marker', 'run_l')).rejects.toBeInstanceOf(RideLostError);
      expect(await jobWrite(ctx, 'marker', 'run_l')).toBe(false);
      expect(await runKeys(db)).toEqual(['marker']);
    });

    it('never commits a decided job write without an end dropped while runWrite retried it', async () => {
      const { rides, ctx } = open(60_000);
      const busy: RideWrite = async () => {
        // A condition `runWrite` retries (the database asks for it).
        throw Object.assign(new Error('busy'), { code: dialect === 'sqlite' ? 'SQLITE_BUSY' : '40001' });
      };
      const ended = rides.offer('run_n', COMPLETED, busy);
      await expect(jobWrite(ctx, 'marker', 'run_n')).rejects.toBeInstanceOf(RideLostError);
      expect(await ended).toBe(false);
      expect(await runKeys(db)).toEqual([]);
    });
  });
}

describeRides('sqlite');
describeRides('postgres');
