import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** Commits between two background checkpoints (SQLite's own default is every 1,000 log pages). */
export const CHECKPOINT_EVERY_COMMITS = 64;

/**
 * Log size past which the server's own connection checkpoints (on the event loop) anyway: under
 * writes that never pause, a background checkpoint never catches up with the last frame, so SQLite
 * never starts the log over; one checkpoint on the writing connection lets it.
 */
export const WAL_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The worker's code, evaluated as a script (no file to ship next to a bundle): it opens its own
 * connection and runs a PASSIVE checkpoint per message, which never waits for readers or writers.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, frames: result ? result.checkpointed : 0 });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

/** Counts of a {@link Checkpointer} (tests, diagnostics). */
export interface CheckpointStats {
  readonly background: number;
  readonly inline: number;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. SQLite runs a checkpoint inside the commit
 * that crosses 1,000 log pages: it copies the pages into the database file and syncs both files,
 * several milliseconds during which the whole server waits (about one commit in 26 of a
 * `sendRequest` load; the tail of every latency). Here the server's connection never checkpoints
 * on its own (`wal_autocheckpoint=0`); a worker thread with its own connection runs a PASSIVE
 * checkpoint every {@link CHECKPOINT_EVERY_COMMITS} commits, beside the writes.
 *
 * @remarks Safe by SQLite's design: checkpoints from another connection are how WAL is meant to
 * be used, PASSIVE never blocks a writer, and durability is the log's (sqlite-wal-sync.ts). If
 * the worker fails, SQLite's own automatic checkpoints are switched back on.
 */
export class Checkpointer {
  readonly #database: BetterSqlite3.Database;
  readonly #file: string;
  readonly #walPath: string;
  /** Started at the first checkpoint: most databases a test opens never need one. */
  #worker: Worker | null = null;
  #commits = 0;
  #inFlight = false;
  #failed = false;
  #closed = false;
  #exited = false;
  #background = 0;
  #inline = 0;
  readonly #log: (message: string) => void;
  readonly #every: number;
  readonly #walLimit: number;

  /** `log` hears why background checkpoints stopped; `limits` replace the constants (tests). */
  constructor(
    database: BetterSqlite3.Database,
    file: string,
    log: (message: string) => void,
    limits: { readonly everyCommits?: number; readonly walLimitBytes?: number } = {},
  ) {
    this.#every = limits.everyCommits ?? CHECKPOINT_EVERY_COMMITS;
    this.#walLimit = limits.walLimitBytes ?? WAL_LIMIT_BYTES;
    this.#database = database;
    this.#file = file;
    this.#walPath = `${file}-wal`;
    this.#log = log;
    database.pragma('wal_autocheckpoint = 0');
  }

  get stats(): CheckpointStats {
    return { background: this.#background, inline: this.#inline };
  }

  /** Called after each commit of a write (on the server's connection, outside any transaction). */
  committed(): void {
    if (this.#failed || this.#closed) return;
    this.#commits += 1;
    if (this.#commits < this.#every) return;
    this.#commits = 0;
    if (walBytes(this.#walPath) > this.#walLimit) {
      this.#inline += 1;
      this.#database.pragma('wal_checkpoint(PASSIVE)');
      return;
    }
    if (this.#inFlight) return;
    this.#inFlight = true;
    this.#started().postMessage('checkpoint');
  }

  /** Stops the worker (before the server's connection closes, which checkpoints one last time). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const worker = this.#worker;
    if (worker === null || this.#exited) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Unreferenced, the worker would not keep the process alive until it has closed its connection.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  /** The worker, started on first use. */
  #started(): Worker {
    if (this.#worker !== null) return this.#worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_CODE, { eval: true, workerData: { file: this.#file, driver } });
    // The worker must not keep the process alive; it ends with the database.
    worker.unref();
    worker.on('message', (message: { ok: boolean; error?: string }) => {
      this.#inFlight = false;
      if (message.ok) this.#background += 1;
      else this.#fail(`background checkpoint failed: ${message.error}`);
    });
    worker.on('error', (error) => this.#fail(`checkpoint worker failed: ${String(error)}`));
    worker.on('exit', () => {
      this.#exited = true;
      if (!this.#closed) this.#fail('checkpoint worker exited');
    });
    this.#worker = worker;
    return worker;
  }

  #fail(reason: string): void {
    if (this.#failed || this.#closed) return;
    this.#failed = true;
    this.#log(`${reason}; SQLite checkpoints on its own connection again`);
    try {
      this.#database.pragma('wal_autocheckpoint = 1000');
    } catch {
      // The connection is closing: nothing to restore.
    }
  }
}

function walBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
