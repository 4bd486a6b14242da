import BetterSqlite3 from 'better-sqlite3';
import { DatabaseInUseError } from './database-in-use-error.js';

/** A held single-server lock on a SQLite database file. */
export interface SqliteFileLock {
  /** Releases the lock (idempotent). */
  release(): void;
}

/**
 * Takes the single-server lock of a SQLite database: an open `BEGIN EXCLUSIVE` on the companion
 * file `<file>.lock`, held for the life of the server.
 *
 * @remarks A lock in its own tiny database (not on the data file) leaves the data file free for
 * WAL readers, and the operating system drops it when the process dies, so a crash never leaves
 * a stale lock behind (a PID file would). A zero busy timeout makes a second server fail at once.
 * @throws DatabaseInUseError when another connection already holds it.
 */
export function acquireSqliteFileLock(file: string): SqliteFileLock {
  const lockFile = `${file}.lock`;
  const lockDb = new BetterSqlite3(lockFile, { timeout: 0 });
  try {
    lockDb.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lockDb.close();
    throw new DatabaseInUseError(file, { cause: error });
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      lockDb.exec('ROLLBACK');
      lockDb.close();
    },
  };
}
