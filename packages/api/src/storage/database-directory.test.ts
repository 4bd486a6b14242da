import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseDirectoryError, makeDatabaseDirectory } from './database-directory.js';
import { openDatabase } from './open-database.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-dbdir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error `work` throws (it must throw). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('makeDatabaseDirectory', () => {
  it('makes every missing parent, and accepts a directory that already exists', () => {
    const deep = join(dir, 'a', 'b', 'c');
    makeDatabaseDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDatabaseDirectory(deep);
    makeDatabaseDirectory(dir);
  });

  it('refuses a path below /proc at once, naming the first directory it could not make (Node 20 recursive mkdir never returned)', () => {
    const error = thrown(() => makeDatabaseDirectory('/proc/agent-teams-x/y'));
    expect(error).toBeInstanceOf(DatabaseDirectoryError);
    expect(error).toMatchObject({ directory: '/proc/agent-teams-x', code: 'ENOENT' });
    expect((error as Error).message).toContain('--database');
  });

  it('refuses a path through a file, as ENOTDIR, and creates nothing', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    expect(thrown(() => makeDatabaseDirectory(join(file, 'sub')))).toMatchObject({ directory: file, code: 'ENOTDIR' });
    expect(thrown(() => makeDatabaseDirectory(join(file, 'sub', 'deeper')))).toMatchObject({ directory: file });
    expect(existsSync(join(file, 'sub'))).toBe(false);
  });

  it('is what openDatabase runs: a SQLite file below /proc is refused with DatabaseDirectoryError', async () => {
    await expect(openDatabase('/proc/agent-teams-x/teams.sqlite')).rejects.toBeInstanceOf(DatabaseDirectoryError);
  });
});
