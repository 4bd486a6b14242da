import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

/** `[busy, frames in the log, frames checkpointed]` as a PASSIVE checkpoint of `db` reports them. */
function walState(db: BetterSqlite3.Database): { log: number; checkpointed: number } {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  return { log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 };
}

describe('SQLite checkpoints off the event loop', () => {
  it('the server connection never checkpoints on its own; a worker does, every CHECKPOINT_EVERY_COMMITS commits', async () => {
    const file = join(dir, 'worker.sqlite');
    const opened = await openDatabase(file);
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`PRAGMA ${name}`).execute(opened.db)).rows[0] as object)[0];
      expect(await pragma('wal_autocheckpoint')).toBe(0);
      await sql`create table t (id integer primary key, v text)`.execute(opened.db);
      // The create table was commit 1: one fewer insert stays below the threshold.
      for (let i = 0; i < CHECKPOINT_EVERY_COMMITS - 2; i += 1)
        await sql`insert into t (v) values (${i})`.execute(opened.db);
      expect(opened.checkpoints?.()).toEqual({ background: 0, inline: 0 });
      await sql`insert into t (v) values ('last')`.execute(opened.db);
      await vi.waitFor(() => expect(opened.checkpoints?.().background).toBe(1));
      expect(opened.checkpoints?.().inline).toBe(0);
    } finally {
      await opened.close();
    }
    // The worker checkpointed the log into the file: reopened, every row is there.
    const again = new BetterSqlite3(file, { readonly: true });
    try {
      expect((again.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(
        CHECKPOINT_EVERY_COMMITS - 1,
      );
    } finally {
      again.close();
    }
  });

  it('checkpoints on the server connection when the log outgrows its limit, so the log can start over', () => {
    const file = join(dir, 'inline.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    const checkpointer = new Checkpointer(db, file, () => undefined, { everyCommits: 4, walLimitBytes: 1 });
    try {
      db.exec('create table t (id integer primary key, v text)');
      const insert = db.prepare('insert into t (v) values (?)');
      for (let i = 0; i < 8; i += 1) {
        insert.run('x'.repeat(10_000));
        checkpointer.committed();
      }
      expect(checkpointer.stats).toEqual({ background: 0, inline: 2 });
      const state = walState(db);
      expect(state.checkpointed).toBe(state.log);
    } finally {
      void checkpointer.close();
      db.close();
    }
  });

  it("switches SQLite's own checkpoints back on when the worker cannot run", async () => {
    const file = join(dir, 'failing.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    const reasons: string[] = [];
    // The worker opens a file that does not exist (fileMustExist): it fails at start.
    const checkpointer = new Checkpointer(db, join(dir, 'missing.sqlite'), (reason) => reasons.push(reason), {
      everyCommits: 1,
    });
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      db.exec('create table t (id integer primary key)');
      checkpointer.committed();
      await vi.waitFor(() => expect(reasons).toHaveLength(1));
      expect(reasons[0]).toMatch(/SQLite checkpoints on its own connection again/);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      // Later commits do not try the worker again.
      checkpointer.committed();
      expect(checkpointer.stats).toEqual({ background: 0, inline: 0 });
    } finally {
      await checkpointer.close();
      db.close();
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
    expect(stdout).toMatch(/^closed \{"background":[12],"inline":0\}/);
    // The single-server lock went with the close: the file opens again.
    expect(existsSync(file)).toBe(true);
    const again = await openDatabase(file);
    await again.close();
  });
});
