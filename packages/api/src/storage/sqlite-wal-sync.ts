import { closeSync, existsSync, fdatasync, fsync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** Flushes one open file to disk (`fdatasync` by default); rejects when the disk refuses. */
export type FileSync = (fd: number) => Promise<void>;

const datasync: FileSync = (fd) =>
  new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
const fullSync: FileSync = (fd) =>
  new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

/**
 * Thrown to every caller once a sync of the database's log failed: what the disk holds is
 * unknown (a later sync can succeed without the lost pages, as PostgreSQL's "fsyncgate" taught),
 * so no later commit is reported durable either. The server must be stopped and the disk checked.
 */
export class DurabilityError extends Error {
  constructor(cause: unknown) {
    super(
      'The database log could not be synced to disk; what it holds is unknown. Stop the server and check the disk.',
      { cause },
    );
    this.name = 'DurabilityError';
  }
}

/** Counts of {@link WalSync} (benchmarks, diagnostics). */
export interface WalSyncStats {
  /** Commits that wrote something. */
  readonly commits: number;
  /** Syncs of the log that completed. */
  readonly syncs: number;
}

/**
 * Group commit for a SQLite database in WAL mode with `synchronous=NORMAL`: SQLite then commits
 * without syncing its log, and this makes every commit durable before anyone learns of it, with
 * one `fdatasync` of the log (on libuv's thread pool, off the event loop) for all the commits made
 * while the previous one ran.
 *
 * @remarks Why it is as safe as `synchronous=FULL`: a WAL commit is a run of frames appended to
 * the log; after a power loss SQLite replays the log up to the first frame that is missing or
 * torn, so what survives is always a prefix of the commits, and a sync covers every frame
 * written before it started. The driver (`DurableSqliteDialect`) releases its connection and then
 * waits for {@link durable} before a writer goes on, so no caller is told of its commit before a
 * power loss can no longer take it back (what readers may see: `sqlite-durable-dialect.ts`). Syncing the log from our
 * own descriptor works because a sync flushes the file (the inode), not one descriptor's writes.
 * The directory is synced once too, so a log file created by this process survives as a name.
 */
export class WalSync {
  readonly #walPath: string;
  readonly #sync: FileSync;
  #fd: number | null = null;
  #directorySynced = false;
  #commits = 0;
  #synced = 0;
  #syncs = 0;
  #inFlight: Promise<void> | null = null;
  #failed: DurabilityError | null = null;

  /** `databaseFile`: the SQLite file (its log is `<file>-wal`); `sync`: replaced in tests. */
  constructor(databaseFile: string, sync: FileSync = datasync) {
    this.#walPath = `${databaseFile}-wal`;
    this.#sync = sync;
  }

  /** Called after each commit of a write (`open-database.ts` tells commits from statements). */
  committed(): void {
    this.#commits += 1;
  }

  /** Resolves once every commit observed so far is on disk; rejects with {@link DurabilityError}. */
  durable(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#synced >= this.#commits) return Promise.resolve();
    return this.#until(this.#commits);
  }

  /** True once a sync failed (every later query is refused). */
  get failed(): boolean {
    return this.#failed !== null;
  }

  get stats(): WalSyncStats {
    return { commits: this.#commits, syncs: this.#syncs };
  }

  /** Waits for the sync in flight, then closes the log's descriptor (before the database closes). */
  async close(): Promise<void> {
    await this.#inFlight?.catch(() => undefined);
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  async #until(target: number): Promise<void> {
    while (this.#synced < target) {
      // A sync that started before this commit does not cover it: wait for it, then start another.
      if (this.#inFlight === null) {
        const run = this.#syncOnce();
        // Cleared once it settled, never before it is stored: a sync that ends without waiting
        // (no log yet) would otherwise leave a settled promise here, and this loop would spin.
        this.#inFlight = run;
        void run.finally(() => {
          if (this.#inFlight === run) this.#inFlight = null;
        });
      }
      await this.#inFlight;
      if (this.#failed) throw this.#failed;
    }
  }

  async #syncOnce(): Promise<void> {
    const upTo = this.#commits;
    try {
      // No log yet: the "writes" were statements SQLite answers without a frame (a PRAGMA).
      if (this.#fd === null && !existsSync(this.#walPath)) {
        this.#synced = Math.max(this.#synced, upTo);
        return;
      }
      this.#fd ??= openSync(this.#walPath, 'r');
      await this.#sync(this.#fd);
      if (!this.#directorySynced) {
        const directory = openSync(dirname(this.#walPath), 'r');
        try {
          await fullSync(directory);
        } finally {
          closeSync(directory);
        }
        this.#directorySynced = true;
      }
      this.#synced = Math.max(this.#synced, upTo);
      this.#syncs += 1;
    } catch (error) {
      this.#failed = new DurabilityError(error);
    }
  }
}
