/**
 * Per-team serial queues: tasks of one team run one after another, tasks of different teams
 * run concurrently and never wait for each other.
 *
 * @remarks A queue holds no lock across its task's awaits beyond its own order; a task that
 * throws does not stop the tasks after it (tasks are expected to handle their own errors; this
 * is the last guard).
 */
export class TeamQueues {
  readonly #tails = new Map<string, Promise<void>>();

  /** Appends a task to the queue of `key`; resolves when the task has finished. */
  enqueue(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(task).catch(() => undefined);
    this.#tails.set(key, next);
    void next.then(() => {
      if (this.#tails.get(key) === next) this.#tails.delete(key);
    });
    return next;
  }

  /** Number of teams with queued or running tasks. */
  get size(): number {
    return this.#tails.size;
  }

  /** Waits until every queued task has finished, or `timeoutMs` passed; true when all finished. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.#tails.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, remaining);
      });
      await Promise.race([Promise.all(this.#tails.values()), timeout]);
      clearTimeout(timer);
    }
    return true;
  }
}
