import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest, withTempFilesOnDisk } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { CommitCounter } from '../support/commit-counter.js';

const NOW = '2026-12-05T05:00:00.000Z';
/** `PRAGMA temp_store`: 1 FILE, 2 MEMORY. */
const FILE = 1;
const MEMORY = 2;

async function tempStore(db: Kysely<Database>): Promise<number> {
  const found = await sql<{ temp_store: number }>`PRAGMA temp_store`.execute(db);
  return Number(found.rows[0]?.temp_store);
}

describe('writes with no small bound on the pages they change (decision 0234)', () => {
  let dir: string;
  let database: OpenedDatabase;
  let statements: CommitCounter;
  let ctx: StoreContext;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-teams-large-writes-'));
    database = await openDatabase(join(dir, 'large.sqlite'));
    await migrateToLatest(database.db, database.dialect);
    await sql`create table large_marks (key text primary key)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await sql`delete from large_marks`.execute(database.db);
    statements = new CommitCounter();
    ctx = { db: database.db.withPlugin(statements), dialect: 'sqlite', sink: null, ids: null };
  });

  /** A write marking `key`, answering where SQLite kept its temporary files meanwhile. */
  const write = (key: string, large = false, fail = false) =>
    runWrite(
      ctx,
      NOW,
      async (scope) => {
        await sql`insert into large_marks (key) values (${key})`.execute(scope.trx);
        const store = await tempStore(scope.trx);
        if (fail) throw new Error(`${key} failed`);
        return store;
      },
      { large },
    );

  it('runs a large write in a transaction of its own with temporary files on disk; the writes around it share theirs', async () => {
    const stores = await Promise.all([write('a'), write('b'), write('large', true), write('c'), write('d')]);
    expect(stores).toEqual([MEMORY, MEMORY, FILE, MEMORY, MEMORY]);
    expect(statements.commits).toBe(3);
    // The transactions' own statements (the writes' inserts and reads left out).
    const control = new Set(['BEGIN', 'SAVEPOINT', 'RELEASE', 'COMMIT']);
    expect(statements.raw.filter((word) => control.has(word))).toEqual([
      'BEGIN',
      'SAVEPOINT',
      'RELEASE',
      'SAVEPOINT',
      'RELEASE',
      'COMMIT',
      'BEGIN',
      'COMMIT',
      'BEGIN',
      'SAVEPOINT',
      'RELEASE',
      'SAVEPOINT',
      'RELEASE',
      'COMMIT',
    ]);
    expect(await tempStore(database.db)).toBe(MEMORY);
    const keys = await sql<{ key: string }>`select key from large_marks order by key`.execute(database.db);
    expect(keys.rows.map((row) => row.key)).toEqual(['a', 'b', 'c', 'd', 'large']);
  });

  it('runs two large writes queued together one after the other, each alone', async () => {
    const stores = await Promise.all([write('one', true), write('two', true)]);
    expect(stores).toEqual([FILE, FILE]);
    expect(statements.commits).toBe(2);
    expect(statements.raw.filter((word) => word === 'SAVEPOINT')).toEqual([]);
    expect(await tempStore(database.db)).toBe(MEMORY);
  });

  it('keeps temporary files in memory again after a large write that failed, and commits nothing of it', async () => {
    const results = await Promise.allSettled([write('x'), write('broken', true, true), write('y')]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await tempStore(database.db)).toBe(MEMORY);
    const keys = await sql<{ key: string }>`select key from large_marks order by key`.execute(database.db);
    expect(keys.rows.map((row) => row.key)).toEqual(['x', 'y']);
  });

  it('migrates with temporary files on disk and puts the setting back, also when the work throws', async () => {
    let during = 0;
    expect(
      await withTempFilesOnDisk(database.db, async () => {
        during = await tempStore(database.db);
        return 'done';
      }),
    ).toBe('done');
    expect(during).toBe(FILE);
    expect(await tempStore(database.db)).toBe(MEMORY);
    await expect(
      withTempFilesOnDisk(database.db, async () => {
        throw new Error('migration failed');
      }),
    ).rejects.toThrow('migration failed');
    expect(await tempStore(database.db)).toBe(MEMORY);
    // Nothing left to apply: the setting is back all the same.
    expect(await migrateToLatest(database.db, database.dialect)).toEqual([]);
    expect(await tempStore(database.db)).toBe(MEMORY);
  });
});
