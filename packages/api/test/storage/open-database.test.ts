import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseInUseError } from '../../src/storage/database-in-use-error.js';
import { classifyDriverError, DriverErrorKind } from '../../src/storage/driver-errors.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openDatabase on SQLite', () => {
  it('creates the parent directory and sets WAL, synchronous FULL, busy timeout and foreign keys', async () => {
    const file = join(dir, 'nested', 'deeper', 'teams.sqlite');
    const opened = await openDatabase(file);
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`PRAGMA ${name}`).execute(opened.db)).rows[0] as object)[0];
      expect(opened.dialect).toBe('sqlite');
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('synchronous')).toBe(2);
      expect(opened.walSync).toBeUndefined();
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('temp_store')).toBe(2);
      expect(existsSync(`${file}.lock`)).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it('keeps the statement journal of a savepoint in memory: no temporary file past 64 KiB of changed pages (decision 0234)', async () => {
    const opened = await openDatabase(join(dir, 'journal.sqlite'));
    // SQLite opens its temporary files unlinked: they show as `… (deleted)` among the open files.
    const deletedFiles = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).endsWith('(deleted)');
        } catch {
          return false; // closed meanwhile (the listing's own descriptor)
        }
      }).length;
    try {
      await sql`create table pages (id integer primary key, body text not null)`.execute(opened.db);
      await sql`insert into pages (body) with recursive n(i) as (select 1 union all select i + 1 from n where i < 200) select printf('%.3000c', 'a') from n`.execute(
        opened.db,
      );
      const before = deletedFiles();
      const during = await opened.db.transaction().execute(async (trx) => {
        await sql`savepoint one_write`.execute(trx);
        // About 150 pages (600 KiB) changed inside the savepoint: far past the 64 KiB spill.
        await sql`update pages set body = printf('%.3000c', 'b')`.execute(trx);
        const open = deletedFiles();
        await sql`release savepoint one_write`.execute(trx);
        return open;
      });
      expect(during).toBe(before);
      const changed = await sql<{ n: number }>`select count(*) as n from pages where body like 'b%'`.execute(opened.db);
      expect(changed.rows[0]?.n).toBe(200);
    } finally {
      await opened.close();
    }
  });

  it('with group: SQLite commits without its own sync (NORMAL) and group commit syncs the log, still in WAL', async () => {
    const opened = await openDatabase(join(dir, 'group.sqlite'), { sqliteSynchronous: 'group' });
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`PRAGMA ${name}`).execute(opened.db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('synchronous')).toBe(1);
      const before = opened.walSync?.().syncs ?? Number.NaN;
      await sql`create table t (id integer primary key)`.execute(opened.db);
      expect(opened.walSync?.().syncs).toBe(before + 1);
    } finally {
      await opened.close();
    }
  });

  it('sets synchronous NORMAL when asked (no fsync per commit, no group commit), still in WAL', async () => {
    const opened = await openDatabase(join(dir, 'normal.sqlite'), { sqliteSynchronous: 'normal' });
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`PRAGMA ${name}`).execute(opened.db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('synchronous')).toBe(1);
      expect(opened.walSync).toBeUndefined();
    } finally {
      await opened.close();
    }
  });

  it('refuses a second open of the same file and opens again after close', async () => {
    const file = join(dir, 'locked.sqlite');
    const first = await openDatabase(file);
    const second = openDatabase(file);
    await expect(second).rejects.toBeInstanceOf(DatabaseInUseError);
    await expect(second).rejects.toMatchObject({ file });
    await first.close();
    const third = await openDatabase(file);
    await third.close();
  });

  it('opens :memory: without a lock, any number of times', async () => {
    const a = await openDatabase(':memory:');
    const b = await openDatabase(':memory:');
    expect((await migrateToLatest(a.db, a.dialect)).slice(0, 1)).toEqual(['0001-initial']);
    expect(await migrateToLatest(a.db, a.dialect)).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  it('enforces one admitted job per conversation in the schema', async () => {
    const opened = await openDatabase(':memory:');
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const base = {
        owner: 'o',
        client_request_id: 'c',
        fingerprint: 'f',
        name: 'n',
        goal: 'g',
        status: 'READY',
        revision: 0,
        last_event_seq: 0,
        created_at: 't',
        updated_at: 't',
      };
      await opened.db
        .insertInto('teams')
        .values({ ...base, id: 'team_1' })
        .execute();
      const job = (id: string, phase: string) => ({
        id,
        team_id: 'team_1',
        owner: 'o',
        kind: 'REQUEST',
        phase,
        unfinished: 1,
        conversation_id: 'conversation_1',
        requester_key: '',
        root_id: id,
        client_key: id,
        text: 't',
        created_at: 't',
        updated_at: 't',
      });
      await opened.db
        .insertInto('jobs')
        .values([job('job_1', 'RUNNING'), job('job_2', 'QUEUED')])
        .execute();
      const error = await opened.db
        .insertInto('jobs')
        .values(job('job_3', 'WAITING_INPUT'))
        .execute()
        .catch((e: unknown) => e);
      expect(classifyDriverError(error, 'sqlite')).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    } finally {
      await opened.close();
    }
  });
});

describe('classifyDriverError', () => {
  it('maps the table of SQLite and PostgreSQL conditions', () => {
    expect(classifyDriverError({ code: 'SQLITE_BUSY' }, 'sqlite')).toBe(DriverErrorKind.RETRYABLE);
    expect(classifyDriverError({ code: '23505' }, 'postgres')).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    for (const code of ['40001', '40P01', '55P03']) {
      expect(classifyDriverError({ code }, 'postgres')).toBe(DriverErrorKind.RETRYABLE);
    }
    expect(classifyDriverError({ code: '23505' }, 'sqlite')).toBe(DriverErrorKind.OTHER);
    expect(classifyDriverError(new Error('x'), 'postgres')).toBe(DriverErrorKind.OTHER);
  });

  it('retries feature_not_supported only for a prepared statement a migration made stale', () => {
    const stale = { code: '0A000', message: 'cached plan must not change result type' };
    expect(classifyDriverError(stale, 'postgres')).toBe(DriverErrorKind.RETRYABLE);
    expect(
      classifyDriverError({ code: '0A000', message: 'FOR UPDATE is not allowed with aggregate functions' }, 'postgres'),
    ).toBe(DriverErrorKind.OTHER);
    expect(classifyDriverError({ code: '0A000' }, 'postgres')).toBe(DriverErrorKind.OTHER);
    expect(classifyDriverError(stale, 'sqlite')).toBe(DriverErrorKind.OTHER);
  });
});
