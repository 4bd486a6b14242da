// A write batch on a database as the server opens it (its handle registered, no plugin): the
// batch's BEGIN IMMEDIATE, savepoints and COMMIT then run straight on the held handle
// (`runControl`), and group commit must still see that COMMIT and sync it before any write hears.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';

describe('a write batch on the held SQLite handle (group commit)', () => {
  let dir: string;
  let database: OpenedDatabase;
  let outside: BetterSqlite3.Database;
  /** While true, every sync of the log waits in `held` until the test lets it go. */
  let holding = false;
  const held: (() => void)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-teams-held-batch-'));
    database = await openDatabase(join(dir, 'held.sqlite'), {
      sqliteSynchronous: 'group',
      // Syncs pass at once until a test holds them.
      sqliteLogSync: () => (holding ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve()),
    });
    await migrateToLatest(database.db, database.dialect);
    await sql`create table marks (key text primary key)`.execute(database.db);
    outside = new BetterSqlite3(join(dir, 'held.sqlite'), { readonly: true });
  });
  afterAll(async () => {
    outside.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls a failed write back alone, commits the rest once, and answers each after the sync', async () => {
    const ctx: StoreContext = { db: database.db, dialect: 'sqlite', sink: null, ids: null };
    const committed = () =>
      (outside.prepare('select key from marks order by key').all() as { key: string }[]).map((r) => r.key);
    const before = database.walSync?.();
    const seen: { key: string; outcome: string; visible: string[] }[] = [];
    const write = (key: string, fails: boolean) =>
      runWrite(ctx, new Date().toISOString(), async (scope) => {
        await sql`insert into marks (key) values (${key})`.execute(scope.trx);
        if (fails) throw new Error(`write ${key} refused`);
        return key;
      })
        .then(
          () => 'committed',
          (error: Error) => error.message,
        )
        .then((outcome) => void seen.push({ key, outcome, visible: committed() }));
    holding = true;
    const writes = Promise.all([write('a', false), write('b', true), write('c', false), write('d', false)]);
    // Committed (another connection sees it) and its sync begun: nobody is answered before it ends.
    await vi.waitFor(() => expect(held.length).toBe(1));
    expect(committed()).toEqual(['a', 'c', 'd']);
    expect(seen).toEqual([]);
    holding = false;
    held.shift()?.();
    await writes;
    expect(seen.map(({ key, outcome }) => [key, outcome])).toEqual([
      ['a', 'committed'],
      ['b', 'write b refused'],
      ['c', 'committed'],
      ['d', 'committed'],
    ]);
    for (const answer of seen) expect(answer.visible).toEqual(['a', 'c', 'd']);
    // The four shared one transaction: one COMMIT that wrote.
    expect((database.walSync?.().commits ?? 0) - (before?.commits ?? 0)).toBe(1);
  });
});
