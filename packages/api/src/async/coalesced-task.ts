/** Options of a {@link CoalescedTask}. */
export interface CoalescedTaskOptions {
  /**
   * Delays the start of a run (e.g. `setImmediate`), so requests made in the same turn of the
   * event loop share it. Without it, a request with nothing in flight starts the run at once.
   */
  readonly defer?: (start: () => void) => void;
  /** Called each time the task goes idle: nothing running, scheduled or asked for. */
  readonly onIdle?: () => void;
}

/**
 * Runs an async task at most once at a time; requests that arrive while it runs are folded into
 * exactly one more run after it.
 *
 * @remarks The one coalescing helper of the server: the scheduler's passes, each job's steps,
 * a team feed's log reads, the change feed's polls and notifies. A burst of 1,000 wake-ups during
 * a run costs one more run, not 1,000. The task's own errors are its business (it logs them); a
 * rejection here is swallowed so a request never throws into the caller.
 */
export class CoalescedTask {
  readonly #task: () => Promise<void>;
  readonly #options: CoalescedTaskOptions;
  #loop: Promise<void> | null = null;
  #scheduled = false;
  #again = false;
  #stopped = false;

  constructor(task: () => Promise<void>, options: CoalescedTaskOptions = {}) {
    this.#task = task;
    this.#options = options;
  }

  /** True while a run is scheduled, in flight or asked for after the one in flight. */
  get busy(): boolean {
    return this.#loop !== null;
  }

  /** True while a run is in flight (not merely scheduled). */
  get running(): boolean {
    return this.#loop !== null && !this.#scheduled;
  }

  /** Asks for a run: starts (or schedules) one now, or one more after the run in flight. */
  request(): void {
    if (this.#stopped) return;
    if (this.#loop !== null) {
      if (!this.#scheduled) this.#again = true;
      return;
    }
    this.#loop = this.#run();
  }

  /** Refuses further requests; resolves once the run in flight (if any) has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  /** Resolves when nothing is scheduled or in flight (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.#loop) await this.#loop;
  }

  async #run(): Promise<void> {
    const { defer } = this.#options;
    try {
      do {
        this.#again = false;
        if (defer) {
          this.#scheduled = true;
          await new Promise<void>((resolve) => defer(resolve));
          this.#scheduled = false;
          if (this.#stopped) break;
        }
        await this.#task().catch(() => undefined);
      } while (this.#again && !this.#stopped);
    } finally {
      this.#scheduled = false;
      this.#loop = null;
    }
    this.#options.onIdle?.();
  }
}
