import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Commits between two background checkpoints. SQLite's own checkpoint runs inside the commit that
 * crosses 1,000 log pages (about one commit in 26 of a `sendRequest` load); at 8 commits the
 * worker has copied all but the last few commits' pages by then.
 */
export const CHECKPOINT_EVERY_COMMITS = 8;

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
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

/** Counts of a {@link Checkpointer} (tests, diagnostics). */
export interface CheckpointStats {
  /** PASSIVE checkpoints the worker finished. */
  readonly background: number;
}

/**
 * Copies the write-ahead log into the database file on a worker thread, ahead of SQLite.
 *
 * @remarks Why: SQLite checkpoints inside the commit that crosses 1,000 log pages, copying every
 * page and syncing the file while the whole server waits (4–6 ms here; the tail of every latency).
 * That checkpoint still runs, on the server's connection, but it only copies what the worker has
 * not yet copied, and being a checkpoint on the writing connection between its own writes it
 * always finishes, so the log starts over. (Turning SQLite's own checkpoint off instead, as tried
 * first, let the log grow: a checkpoint beside continuous writes never copies the last frame.)
 * Safe by SQLite's design: a checkpoint from another connection is ordinary WAL use, and PASSIVE
 * never blocks a reader or writer. If the worker fails it is not restarted; SQLite's own
 * checkpoints go on as before.
 */
export class Checkpointer {
  readonly #file: string;
  readonly #log: (message: string) => void;
  readonly #every: number;
  /** Started at the first checkpoint: most databases a test opens never need one. */
  #worker: Worker | null = null;
  #commits = 0;
  #inFlight = false;
  #failed = false;
  #closed = false;
  #exited = false;
  #background = 0;

  /** `log` hears why background checkpoints stopped; `everyCommits` replaces the constant (tests). */
  constructor(file: string, log: (message: string) => void, everyCommits = CHECKPOINT_EVERY_COMMITS) {
    this.#file = file;
    this.#log = log;
    this.#every = everyCommits;
  }

  get stats(): CheckpointStats {
    return { background: this.#background };
  }

  /** Called after each commit of a write (on the server's connection, outside any transaction). */
  committed(): void {
    if (this.#failed || this.#closed) return;
    this.#commits += 1;
    // One checkpoint at a time: commits made while one runs are copied by the next.
    if (this.#commits < this.#every || this.#inFlight) return;
    this.#commits = 0;
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
    this.#log(`${reason}; SQLite checkpoints on the server's connection alone from now on`);
    void this.#worker?.terminate();
  }
}
