import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { RIDE_MAX_FAILURES, RideLostError, type RideWrite, type RunRides } from '../../src/storage/run-rides.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { CommitCounter } from '../support/commit-counter.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

const CLOCK: Clock = { nowMs: () => Date.parse('2026-12-03T12:00:00.000Z') };
const NOW = '2026-12-03T12:00:00.000Z';

/** A run row insert, as a scripted run's end writes it; false when the key exists. */
function insertRun(runKey: string): RideWrite {
  return async (trx, now) => {
    const inserted = await trx
      .insertInto('runtime_runs')
      .values({
        run_key: runKey,
        run_id: `run_${runKey}`,
        runtime: 'scripted',
        conversation_id: 'conv_1',
        job_id: null,
        state: 'completed',
        state_json: '{}',
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  };
}

async function runKeys(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('runtime_runs').select('run_key').orderBy('run_key').execute();
  return rows.map((row) => row.run_key);
}

/**
 * A "job write" of the scheduler (decided on the run's announced end): a marker row of its own,
 * and the ride of `runId` carried in the same transaction.
 */
function jobWrite(ctx: StoreContext, marker: string, runId: string, fail?: Error): Promise<boolean> {
  return runWrite(ctx, NOW, async (scope) => {
    await insertRun(marker)(scope.trx, NOW);
    const carried = await scope.carryRide(runId, true);
    if (fail) throw fail;
    return carried;
  });
}

const COMPLETED = { state: 'completed', answer: 'done' } as const;

function describeRides(dialect: 'sqlite' | 'postgres') {
  describe(`RunRides on ${dialect}`, () => {
    let database: OpenedDatabase;
    let cleanup: () => Promise<void>;
    let counter: CommitCounter;
    let db: Kysely<Database>;

    beforeAll(async () => {
      if (dialect === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'agent-teams-rides-'));
        database = await openDatabase(join(dir, 'rides.sqlite'));
        await migrateToLatest(database.db, database.dialect);
        cleanup = async () => {
          await database.close();
          rmSync(dir, { recursive: true, force: true });
        };
      } else {
        const fresh: FreshPostgres = await createFreshPostgres('rides');
        database = await openDatabase(fresh.url);
        cleanup = async () => {
          await database.close();
          await fresh.drop();
        };
      }
    });
    afterAll(async () => cleanup());
    afterEach(async () => {
      await database.db.deleteFrom('runtime_runs').execute();
    });

    /**
     * How many transactions wrote these run rows: on SQLite the COMMITs counted since `open`; on
     * PostgreSQL the distinct `xmin` (the id of the transaction that inserted each row).
     */
    async function transactionsOf(keys: readonly string[]): Promise<number> {
      if (dialect === 'sqlite') return counter.commits;
      const { rows } = await sql<{
        xmin: string;
      }>`select xmin::text as xmin from runtime_runs where run_key in (${sql.join(keys)})`.execute(database.db);
      return new Set(rows.map((row) => row.xmin)).size;
    }

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

    it('rolls the job write back when another execution ended the run first', async () => {
      const { rides, ctx } = open(60_000);
      await insertRun('c')(database.db, NOW); // another execution's end
      const ended = rides.offer('run_c', COMPLETED, insertRun('c'));
      await expect(jobWrite(ctx, 'marker', 'run_c')).rejects.toBeInstanceOf(RideLostError);
      expect(await ended).toBe(false);
      expect(await runKeys(db)).toEqual(['c']);
      expect(rides.stateOf('run_c')).toBeUndefined();
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
