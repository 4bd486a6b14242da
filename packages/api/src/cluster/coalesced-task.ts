/**
 * Runs an async task at most once at a time; requests that arrive while it runs are folded into
 * exactly one more run after it.
 *
 * @remarks Used for polls and notifies of the change feed: a burst of 1,000 commits during one
 * poll costs one extra poll, not 1,000. The task's own errors are its business (it logs them);
 * a rejection here is swallowed so a request never throws into the caller.
 */
export class CoalescedTask {
  readonly #task: () => Promise<void>;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(task: () => Promise<void>) {
    this.#task = task;
  }

  /** True while a run is in flight. */
  get running(): boolean {
    return this.#running !== null;
  }

  /** Asks for a run: starts one now, or one more after the run in flight. */
  request(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = null;
    });
  }

  /** Refuses further requests; resolves once the runs already asked for have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  /** Resolves when nothing is in flight (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      await this.#task().catch(() => undefined);
    } while (this.#again);
  }
}
