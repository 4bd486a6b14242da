import { fdatasync, mkdtempSync, rmSync } from 'node:fs';
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
import { eventually } from '../support/test-app.js';

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

  it('rolls a failing write back to its savepoint alone, answering it after the COMMIT: the others commit', async () => {
    const boom = new Error('boom');
    let seenAtRefusal: string[] = [];
    const results = await Promise.allSettled([
      write('a'),
      write('b', async () => {
        throw boom;
      }).catch((error: unknown) => {
        // Its refusal may rest on what `a` wrote: told only once that is durable.
        seenAtRefusal = committedKeys();
        throw error;
      }),
      write('c'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(boom);
    expect(seenAtRefusal).toEqual(['a', 'c']);
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
    expect((results[1] as PromiseRejectedResult).reason).toBe(ended);
    expect(committedKeys()).toEqual(['c', 'd']);
  });

  it('fails every write that ran when the COMMIT fails, a refused one too, and never runs them again', async () => {
    const results = await Promise.allSettled([
      write('a'),
      // A deferred foreign key is checked at COMMIT: this orphan makes the COMMIT itself fail.
      write('b', async (trx) => {
        await sql`insert into batch_child (id, parent) values ('orphan', 'nobody')`.execute(trx);
      }),
      write('c'),
      // Refused in the batch (`a` holds its key): its refusal rested on what was rolled back, so
      // it hears the COMMIT's error. Run again here instead, it could loop on a full disk.
      write('a'),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    for (const result of results) expect(String((result as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/i);
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

  it('gives a read that queued behind a waiting batch its turn before the writes that queued after it', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Something else holds the connection: the drain of `w1` waits for it.
    const held = database.db.connection().execute(() => gate);
    const w1 = write('w1');
    await new Promise((resolve) => setImmediate(resolve));
    const read = ctx.db.selectFrom('runtime_runs').select('run_key').execute();
    const w2 = write('w2');
    open();
    await held;
    expect((await read).map((row) => row.run_key)).toEqual(['w1']);
    await Promise.all([w1, w2]);
    expect(committedKeys()).toEqual(['w1', 'w2']);
  });

  it('tells each write of a shared transaction its own publication, in turn, after the one COMMIT', async () => {
    // The scheduler tells its own commits apart by these hooks (a `PublishWindow`, decision 0236).
    const heard: string[] = [];
    await Promise.all(
      ['r1', 'r2', 'r3'].map((id) =>
        runWrite(ctx, NOW, (scope) => mark(scope.trx, id), {
          around: {
            committed: () => heard.push(`open ${id} after ${statements.commits} commit(s)`),
            published: () => heard.push(`close ${id}`),
          },
        }),
      ),
    );
    expect(statements.commits).toBe(1);
    expect(heard).toEqual([
      'open r1 after 1 commit(s)',
      'close r1',
      'open r2 after 1 commit(s)',
      'close r2',
      'open r3 after 1 commit(s)',
      'close r3',
    ]);
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

  it('with group commit, begins the next batch only after the previous one’s sync: a refusal resting on it comes after it', async () => {
    const file = join(dir, 'group.sqlite');
    const held: (() => void)[] = [];
    let holding = false;
    const grouped = await openDatabase(file, {
      sqliteSynchronous: 'group',
      sqliteLogSync: (fd) =>
        holding
          ? new Promise<void>((resolve) => held.push(resolve))
          : new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve()))),
    });
    try {
      await migrateToLatest(grouped.db, grouped.dialect);
      holding = true;
      const groupCtx: StoreContext = { db: grouped.db, dialect: 'sqlite', sink: null, ids: null };
      const answered: string[] = [];
      const send = (key: string) =>
        runWrite(groupCtx, NOW, (scope) => mark(scope.trx, key)).then(() => answered.push(key));
      const first = send('first');
      await eventually(() => held.length === 1 || undefined, 'the first batch’s sync', 5_000);
      // Refused because `first` holds its key: `first` is committed, not yet durable.
      const second = send('first').catch(() => answered.push('second refused'));
      for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toEqual([]);
      held[0]?.();
      await Promise.all([first, second]);
      expect(answered).toEqual(['first', 'second refused']);
    } finally {
      holding = false;
      for (const release of held) release();
      await grouped.close();
    }
  });
});
