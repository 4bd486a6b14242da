import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.js';
import { CHECKPOINT_EVERY_COMMITS, Checkpointer } from '../../src/storage/sqlite-checkpointer.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of `t` in the database file alone: a copy without its log shows only what was checkpointed. */
function rowsInFile(file: string, name: string): number {
  const copy = join(dir, `${name}-file-only.sqlite`);
  copyFileSync(file, copy);
  const db = new BetterSqlite3(copy, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from t').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('SQLite checkpoints ahead of SQLite, on a worker thread', () => {
  it('copies the log into the file every CHECKPOINT_EVERY_COMMITS commits; SQLite keeps its own checkpoint', async () => {
    const file = join(dir, 'worker.sqlite');
    const opened = await openDatabase(file);
    try {
      const autocheckpoint = (await sql.raw('PRAGMA wal_autocheckpoint').execute(opened.db)).rows[0] as object;
      expect(Object.values(autocheckpoint)[0]).toBe(1000);
      await sql`create table t (id integer primary key, v text)`.execute(opened.db);
      // The create table was commit 1: one fewer insert stays below the threshold.
      for (let i = 0; i < CHECKPOINT_EVERY_COMMITS - 2; i += 1)
        await sql`insert into t (v) values (${i})`.execute(opened.db);
      expect(opened.checkpoints?.()).toEqual({ background: 0 });
      // Only in the log so far: the file alone has no table yet.
      expect(() => rowsInFile(file, 'before')).toThrow(/no such table/);
      await sql`insert into t (v) values ('last')`.execute(opened.db);
      await vi.waitFor(() => expect(opened.checkpoints?.()).toEqual({ background: 1 }));
      expect(rowsInFile(file, 'after')).toBe(CHECKPOINT_EVERY_COMMITS - 1);
    } finally {
      await opened.close();
    }
  });

  it('lets the log start over under writes that never pause (it stays near 1,000 pages)', async () => {
    const file = join(dir, 'continuous.sqlite');
    const opened = await openDatabase(file);
    try {
      await sql`create table t (id integer primary key, v text)`.execute(opened.db);
      // About one page per commit: 3,000 commits would make a 12 MiB log if it never restarted.
      // A server turns its event loop between requests; so does this loop (the worker's answers need it).
      for (let i = 0; i < 3_000; i += 1) {
        await sql`insert into t (v) values (${'x'.repeat(3_000)})`.execute(opened.db);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(opened.checkpoints?.().background).toBeGreaterThan(3_000 / CHECKPOINT_EVERY_COMMITS / 4);
      const pageSize = Number(
        Object.values((await sql.raw('PRAGMA page_size').execute(opened.db)).rows[0] as object)[0],
      );
      expect(statSync(`${file}-wal`).size).toBeLessThan(1_200 * (pageSize + 24));
    } finally {
      await opened.close();
    }
  });

  it('stops for good and says why when the worker cannot run; writes go on', async () => {
    const file = join(dir, 'failing.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    const reasons: string[] = [];
    // The worker opens a file that does not exist (fileMustExist): it fails at start.
    const checkpointer = new Checkpointer(join(dir, 'missing.sqlite'), (reason) => reasons.push(reason), 1);
    try {
      db.exec('create table t (id integer primary key)');
      checkpointer.committed();
      await vi.waitFor(() => expect(reasons).toHaveLength(1));
      expect(reasons[0]).toMatch(/SQLite checkpoints on the server's connection alone from now on/);
      db.exec('insert into t default values');
      checkpointer.committed();
      expect(checkpointer.stats).toEqual({ background: 0 });
      expect(reasons).toHaveLength(1);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('inline leaves checkpoints to SQLite alone', async () => {
    const opened = await openDatabase(join(dir, 'inline.sqlite'), { sqliteCheckpoints: 'inline' });
    try {
      expect(opened.checkpoints).toBeUndefined();
    } finally {
      await opened.close();
    }
  });

  it('close() keeps the process alive until the worker has closed (the database lock is released)', async () => {
    const file = join(dir, 'child.sqlite');
    const child = fileURLToPath(new URL('./checkpointer-close-child.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@agent-teams/source', '--import', 'tsx', child, file],
      { timeout: 60_000 },
    );
    expect(stdout).toMatch(/^closed \{"background":[12]\}/);
    // The single-server lock went with the close: the file opens again.
    const again = await openDatabase(file);
    await again.close();
  });
});
