import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { DurabilityError, type FileSync, WalSync } from '../../src/storage/sqlite-wal-sync.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-group-commit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A log sync the test holds until it lets it go (or fails it). */
function heldSync() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const sync: FileSync = () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
  return {
    sync,
    pending,
    calls: () => pending.length,
    release: (index: number) => pending[index]?.resolve(),
    fail: (index: number, error: Error) => pending[index]?.reject(error),
  };
}

/** Tracks whether a promise settled yet. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false, promise };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

let files = 0;
async function open(sync: FileSync): Promise<OpenedDatabase> {
  files += 1;
  return openDatabase(join(dir, `db-${files}.sqlite`), { sqliteSynchronous: 'group', sqliteLogSync: sync });
}

/** The test's own table `t` is reached with raw SQL, so any Kysely handle of the database will do. */
type Db = Kysely<Database>;
const insert = (db: Db, v: string) => sql`insert into t (v) values (${v})`.execute(db);
const count = async (db: Db) =>
  Number(((await sql`select count(*) as n from t`.execute(db)).rows[0] as { n: number }).n);

async function withTable(sync: FileSync) {
  const opened = await open(async (fd) => {
    if (ready) return sync(fd);
  });
  let ready = false;
  await sql`create table t (id integer primary key, v text)`.execute(opened.db);
  ready = true;
  return opened;
}

describe('SQLite group commit (`--sqlite-synchronous group`: durable writers without an fsync on the event loop)', () => {
  it('answers a write only after a sync of the log that began after its commit', async () => {
    const held = heldSync();
    const opened = await withTable(held.sync);
    try {
      const write = track(insert(opened.db, 'a'));
      await vi.waitFor(() => expect(held.calls()).toBe(1));
      expect(write.settled).toBe(false);
      expect(opened.walSync?.()).toMatchObject({ syncs: 1 });
      held.release(0);
      await write.promise;
      expect(opened.walSync?.().syncs).toBe(2);
    } finally {
      await opened.close();
    }
  });

  it('commits made while a sync runs share the next one (one sync for the group)', async () => {
    const held = heldSync();
    const opened = await withTable(held.sync);
    try {
      const first = track(insert(opened.db, 'first'));
      await vi.waitFor(() => expect(held.calls()).toBe(1));
      // Five transactions commit while the first sync is held: none of them may answer yet.
      const group = Array.from({ length: 5 }, (_, i) =>
        track(opened.db.transaction().execute((trx) => insert(trx, `g${i}`))),
      );
      // They commit (the connection is free while the log syncs), then wait for durability.
      await vi.waitFor(() => expect(opened.walSync?.().commits).toBe(7));
      expect(group.every((write) => !write.settled)).toBe(true);
      held.release(0);
      await first.promise;
      await vi.waitFor(() => expect(held.calls()).toBe(2));
      expect(group.some((write) => write.settled)).toBe(false);
      held.release(1);
      await Promise.all(group.map((write) => write.promise));
      expect(held.calls()).toBe(2);
      const stats = opened.walSync?.();
      expect(stats?.commits).toBe(7);
      expect(stats?.syncs).toBe(3);
    } finally {
      held.release(2);
      await opened.close();
    }
  });

  it("a read does not wait for another caller's sync (it may see that commit one sync early)", async () => {
    const held = heldSync();
    const opened = await withTable(held.sync);
    try {
      const write = track(insert(opened.db, 'a'));
      await vi.waitFor(() => expect(held.calls()).toBe(1));
      expect(await count(opened.db)).toBe(1);
      expect(write.settled).toBe(false);
      held.release(0);
      await write.promise;
    } finally {
      await opened.close();
    }
  });

  it('reads alone sync nothing, nor a write transaction that only read; INSERT … RETURNING and a lone UPDATE count as writes', async () => {
    let syncs = 0;
    const opened = await withTable(async () => {
      syncs += 1;
    });
    try {
      for (let i = 0; i < 5; i += 1) await count(opened.db);
      expect(syncs).toBe(0);
      // A write transaction that only read (BEGIN IMMEDIATE takes the write lock, writes nothing).
      await opened.db.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        await count(conn);
        await sql`COMMIT`.execute(conn);
      });
      expect(syncs).toBe(0);
      const returned = await sql`insert into t (v) values ('r') returning id`.execute(opened.db);
      expect(returned.rows).toHaveLength(1);
      expect(syncs).toBe(1);
      await sql`update t set v = 'u'`.execute(opened.db);
      expect(syncs).toBe(2);
      // A transaction of several writes is one commit, one sync.
      await opened.db.transaction().execute(async (trx) => {
        await insert(trx, 'x');
        await insert(trx, 'y');
      });
      expect(syncs).toBe(3);
    } finally {
      await opened.close();
    }
  });

  it('a failed sync fails its write and every later query with DurabilityError (the disk state is unknown)', async () => {
    const held = heldSync();
    const opened = await withTable(held.sync);
    try {
      const write = insert(opened.db, 'a');
      await vi.waitFor(() => expect(held.calls()).toBe(1));
      held.fail(0, Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await expect(write).rejects.toBeInstanceOf(DurabilityError);
      await expect(insert(opened.db, 'b')).rejects.toBeInstanceOf(DurabilityError);
      await expect(count(opened.db)).rejects.toThrow(/could not be synced to disk/);
      expect(held.calls()).toBe(1);
    } finally {
      await opened.close();
    }
  });

  it('syncs the real log file by default, and the data is there after reopening', async () => {
    const file = join(dir, 'real.sqlite');
    const first = await openDatabase(file, { sqliteSynchronous: 'group' });
    await sql`create table t (id integer primary key, v text)`.execute(first.db);
    await Promise.all(Array.from({ length: 20 }, (_, i) => insert(first.db, `v${i}`)));
    expect(existsSync(`${file}-wal`)).toBe(true);
    const stats = first.walSync?.();
    expect(stats?.commits).toBe(21);
    expect(stats?.syncs).toBeGreaterThanOrEqual(1);
    expect(stats?.syncs).toBeLessThanOrEqual(21);
    await first.close();
    const again = await openDatabase(file, { sqliteSynchronous: 'group' });
    try {
      expect(await count(again.db)).toBe(20);
    } finally {
      await again.close();
    }
  });

  it('a commit made before the log exists needs no sync, and every later commit still gets one', async () => {
    // Once, a sync that ended without waiting (no log yet) stayed stored as the sync in flight,
    // and the next commit's wait spun on it forever.
    const base = join(dir, 'no-log-yet.sqlite');
    let syncs = 0;
    const walSync = new WalSync(base, async () => {
      syncs += 1;
    });
    walSync.committed();
    await walSync.durable();
    expect(syncs).toBe(0);
    writeFileSync(`${base}-wal`, 'frames');
    walSync.committed();
    await walSync.durable();
    expect(syncs).toBe(1);
    walSync.committed();
    await walSync.durable();
    expect(walSync.stats).toEqual({ commits: 3, syncs: 2 });
    await walSync.close();
  });
});
