import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Thrown when the directory of a SQLite `--database` file cannot be made: a parent that is not a
 * directory, a file system that refuses new entries (`/proc`, `/sys`, read-only mounts) or no
 * permission. Nothing was opened or created.
 */
export class DatabaseDirectoryError extends Error {
  /** The directory that could not be made. */
  readonly directory: string;
  /** The file system's code (`ENOENT`, `EACCES`, `ENOTDIR`, …). */
  readonly code: string;

  constructor(directory: string, code: string, options?: { cause?: unknown }) {
    super(
      `[agent-teams/api] Cannot create the directory ${directory} for the SQLite database (${code}). ` +
        'Choose a --database path in a writable directory.',
      options,
    );
    this.name = 'DatabaseDirectoryError';
    this.directory = directory;
    this.code = code;
  }
}

/**
 * Makes `directory` and its missing parents, one at a time from the nearest one that exists.
 *
 * @remarks Why not `mkdirSync(…, { recursive: true })`: on Node 20 it never returns below a
 * directory that answers `ENOENT` to every `mkdir` (`/proc`, where `mkdir /proc/x` says the parent
 * is missing), so `serve --database /proc/x/db.sqlite` hung before printing anything.
 * @throws {@link DatabaseDirectoryError} naming the first directory that could not be made.
 */
export function makeDatabaseDirectory(directory: string): void {
  const missing: string[] = [];
  for (let at = directory; ; at = dirname(at)) {
    if (isDirectory(at)) break;
    missing.push(at);
    // The root itself is missing or not a directory: the first mkdir below reports why.
    if (dirname(at) === at) break;
  }
  for (const at of missing.reverse()) {
    try {
      mkdirSync(at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      // Made meanwhile by another process: as good as made here.
      if (code === 'EEXIST' && isDirectory(at)) continue;
      // Exists and is not a directory: a file stands where a directory should.
      throw new DatabaseDirectoryError(at, code === 'EEXIST' ? 'ENOTDIR' : code, { cause: error });
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
