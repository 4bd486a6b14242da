import { type ChildProcess, fork } from 'node:child_process';
import { benchEntry } from './bench-paths.js';

/** A message between a benchmark and its child process: a `type` and any fields. */
export interface ChildMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * In a child process: answers each message from the benchmark with `reply`; what `reply` throws or
 * rejects with goes back as `{ type: 'failed', error }` (with its stack when it has one).
 */
export function answerParent(reply: (message: ChildMessage) => void | Promise<void>): void {
  process.on('message', (message: ChildMessage) => {
    Promise.resolve()
      .then(() => reply(message))
      .catch((error: unknown) => {
        process.send?.({ type: 'failed', error: String((error as Error)?.stack ?? error) });
      });
  });
}

/**
 * A benchmark's child process (a module of `bench/`, talking over IPC): send a
 * message and wait for the answer of a given type, or listen to what it reports on its own.
 */
export class BenchChild {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(
    readonly name: string,
    child: ChildProcess,
  ) {
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /**
   * Forks `bench/<file>` (a name in this package's `bench/` folder: its bundled entry when this
   * process runs the bundle, `benchEntry`); `nodeArgs` go to its Node (e.g. `--cpu-prof`, which
   * `NODE_OPTIONS` does not accept).
   */
  static fork(name: string, file: string, nodeArgs: readonly string[] = []): BenchChild {
    const { script, execArgv } = benchEntry(file);
    return new BenchChild(
      name,
      fork(script, [], {
        execArgv: [...execArgv, ...nodeArgs],
        stdio: 'inherit',
      }),
    );
  }

  /** Calls `listener` with every message of `type` until the returned function is called. */
  on<T extends { readonly type: string }>(type: string, listener: (message: T) => void): () => void {
    const handler = (message: ChildMessage) => {
      if (message.type === type) listener(message as T);
    };
    this.#child.on('message', handler);
    return () => this.#child.off('message', handler);
  }

  /** Sends a message without waiting. */
  post(message: ChildMessage): void {
    this.#child.send(message);
  }

  /**
   * Sends `message` and resolves with the next message of type `reply` (for which `match` holds),
   * or rejects on a `failed` message, an exit, or after `timeoutMs`.
   */
  request<T extends { readonly type: string } = ChildMessage>(
    message: ChildMessage,
    reply: string,
    timeoutMs: number,
    match: (answer: T) => boolean = () => true,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`[agent-teams/bench] ${this.name}: no ${reply} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (answer: ChildMessage) => {
        if (answer.type === 'failed') {
          done();
          reject(new Error(`[agent-teams/bench] ${this.name} failed: ${String(answer.error)}`));
        } else if (answer.type === reply && match(answer as T)) {
          done();
          resolve(answer as T);
        }
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`[agent-teams/bench] ${this.name} exited (${code}) before ${reply}`));
      };
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
      this.#child.send(message);
    });
  }

  /** Asks the child to close (`close` → `closed`), then waits for its exit; kills it after `graceMs`. */
  async close(graceMs = 20_000): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      await this.request({ type: 'close' }, 'closed', graceMs).catch(() => this.#child.kill('SIGKILL'));
      const killer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
      await this.#exited;
      clearTimeout(killer);
    }
  }
}
