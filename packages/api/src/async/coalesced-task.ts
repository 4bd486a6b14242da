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
  /** Told when the next run of the task ends (see {@link nextRun}). */
  #waiting: (() => void)[] = [];

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
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /**
   * Resolves once the next run of the task has ended: the one a {@link request} made after this
   * call starts (or the one scheduled and not begun yet), not the runs that run asks for in turn.
   * Also resolves when the task stops, or goes idle with no run begun since this call; called while
   * the task is idle, it waits for the next request's run (or the stop).
   */
  nextRun(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
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
        const waiting = this.#waiting.splice(0);
        try {
          await this.#task();
        } catch {
          // The task's own business (see the class remarks).
        } finally {
          for (const resolve of waiting) resolve();
        }
      } while (this.#again && !this.#stopped);
    } finally {
      this.#scheduled = false;
      this.#loop = null;
      // No run follows (stopped, or nothing asked for): nobody waits for one forever.
      for (const resolve of this.#waiting.splice(0)) resolve();
    }
    this.#options.onIdle?.();
  }
}
