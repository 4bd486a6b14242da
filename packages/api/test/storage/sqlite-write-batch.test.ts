import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { openRunRides } from '../../src/storage/open-run-rides.js';
import { MAX_BATCH_WRITES } from '../../src/storage/sqlite-write-batch.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { CommitCounter } from '../support/commit-counter.js';

const NOW = '2026-12-04T12:00:00.000Z';

/** Inserts a marker row (a run row keyed `key`) in the write's transaction. */
async function mark(trx: Kysely<Database>, key: string): Promise<void> {
  await trx
    .insertInto('runtime_runs')
    .values({
      run_key: key,
      run_id: `run_${key}`,
      runtime: 'scripted',
      conversation_id: 'conv_1',
      job_id: null,
      state: 'completed',
      state_json: '{}',
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
}

describe('SQLite writes sharing one transaction (decision 0224)', () => {
  let dir: string;
  let database: OpenedDatabase;
  let statements: CommitCounter;
  let ctx: StoreContext;
  /** A second connection to the file: it sees only what was committed. */
  let outside: BetterSqlite3.Database;

  const committedKeys = () =>
    (outside.prepare('select run_key from runtime_runs order by run_key').all() as { run_key: string }[]).map(
      (row) => row.run_key,
    );
  const write = (key: string, then?: (trx: Kysely<Database>) => Promise<void>) =>
    runWrite(ctx, NOW, async (scope) => {
      await mark(scope.trx, key);
      await then?.(scope.trx);
      return key;
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-teams-batch-'));
    database = await openDatabase(join(dir, 'batch.sqlite'));
    await migrateToLatest(database.db, database.dialect);
    await sql`create table batch_parent (id text primary key)`.execute(database.db);
    await sql`create table batch_child (id text primary key, parent text references batch_parent (id) deferrable initially deferred)`.execute(
      database.db,
    );
    outside = new BetterSqlite3(join(dir, 'batch.sqlite'), { readonly: true });
  });
  afterAll(async () => {
    outside.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await database.db.deleteFrom('runtime_runs').execute();
    statements = new CommitCounter();
    ctx = { db: database.db.withPlugin(statements), dialect: 'sqlite', sink: null, ids: null };
  });

  it('commits the writes queued in one turn of the event loop together, and answers each after that COMMIT', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const seenAtAnswer: string[][] = [];
    await Promise.all(keys.map((key) => write(key).then(() => seenAtAnswer.push(committedKeys()))));
    expect(statements.commits).toBe(1);
    expect(statements.raw.filter((word) => word === 'SAVEPOINT')).toHaveLength(keys.length);
    // Every answer came after the one COMMIT: another connection saw all five rows each time.
    expect(seenAtAnswer).toEqual(keys.map(() => keys));
  });

  it('runs a write that comes alone without a savepoint, as its own transaction', async () => {
    expect(await write('alone')).toBe('alone');
    expect(statements.raw).toEqual(['BEGIN', 'COMMIT']);
    expect(committedKeys()).toEqual(['alone']);
  });

  it('rolls a failing write back to its savepoint alone: it hears its error, the others commit', async () => {
    const boom = new Error('boom');
    const results = await Promise.allSettled([
      write('a'),
      write('b', async () => {
        throw boom;
      }),
      write('c'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(boom);
    expect(committedKeys()).toEqual(['a', 'c']);
    expect(statements.commits).toBe(1);
  });

  it('fails the writes that ran when one ended the whole transaction; those not run yet commit in the next', async () => {
    const ended = new Error('the transaction is gone');
    const results = await Promise.allSettled([
      write('a'),
      write('b', async (trx) => {
        // As SQLite does by itself on a full disk or an I/O error.
        await sql`ROLLBACK`.execute(trx);
        throw ended;
      }),
      write('c'),
      write('d'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toBe(ended);
    expect(committedKeys()).toEqual(['c', 'd']);
  });

  it('fails every write of the batch when its COMMIT fails, and keeps none of them', async () => {
    const results = await Promise.allSettled([
      write('a'),
      // A deferred foreign key is checked at COMMIT: this orphan makes the COMMIT itself fail.
      write('b', async (trx) => {
        await sql`insert into batch_child (id, parent) values ('orphan', 'nobody')`.execute(trx);
      }),
      write('c'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/i);
    expect(committedKeys()).toEqual([]);
    expect(outside.prepare('select count(*) as n from batch_child').get()).toEqual({ n: 0 });
    // The connection is usable again: the next write commits.
    expect(await write('after')).toBe('after');
    expect(committedKeys()).toEqual(['after']);
  });

  it.each([
    [MAX_BATCH_WRITES - 1, 1],
    [MAX_BATCH_WRITES, 1],
    [MAX_BATCH_WRITES + 1, 2],
  ])(`takes at most ${MAX_BATCH_WRITES} writes per transaction: %i writes, %i commits`, async (writes, commits) => {
    const keys = Array.from({ length: writes }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await Promise.all(keys.map((key) => write(key)));
    expect(statements.commits).toBe(commits);
    expect(committedKeys()).toEqual(keys);
  });

  it('lets a later write of the batch find a run end an earlier one carried written, instead of waiting for it', async () => {
    const rides = openRunRides({ db: ctx.db, dialect: 'sqlite' }, { nowMs: () => Date.parse(NOW) }, 60_000);
    const rideCtx: StoreContext = { ...ctx, rides };
    const ended = rides.offer('run_x', { state: 'completed', answer: 'done' }, async (trx) => {
      await mark(trx, 'x-end');
      return true;
    });
    const carry = (marker: string) =>
      runWrite(rideCtx, NOW, async (scope) => {
        await mark(scope.trx, marker);
        return scope.carryRide('run_x', true);
      });
    // Both in one transaction: the second must not wait for the first's hold, which ends only
    // at the COMMIT the second is part of.
    expect(await Promise.all([carry('first'), carry('second')])).toEqual([true, false]);
    expect(await ended).toBe(true);
    expect(statements.commits).toBe(1);
    expect(committedKeys()).toEqual(['first', 'second', 'x-end']);
  });

  it('commits while a test of the host fakes the timers: the wait for other writes is not a faked timer', async () => {
    vi.useFakeTimers();
    try {
      expect(await write('faked')).toBe('faked');
    } finally {
      vi.useRealTimers();
    }
    expect(committedKeys()).toEqual(['faked']);
  });
});
