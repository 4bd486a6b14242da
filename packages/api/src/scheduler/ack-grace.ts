/**
 * How long the acknowledgement of a started run waits for the run to settle (milliseconds). A
 * turn that ends within it is acknowledged with its outcome in one commit; a longer one shows as
 * RUNNING this much later. Restart-safe either way: a run started but not acknowledged is what a
 * crash between the two leaves, and the next step starts it again with its key (decision 0210).
 */
export const ACK_GRACE_MS = 40;

/** Runs deferred at most this many at once are remembered; past it the oldest are forgotten. */
const MAX_REMEMBERED = 1_024;

/**
 * The runs whose acknowledgement is being held back, by run key: each is held back once, so the
 * step after the grace (or after the run's `settled` notice) acknowledges it.
 *
 * @remarks In memory, per server: after a restart, or on another server that claims the job, a
 * run is simply held back once more. A forgotten entry (cancelled or lost jobs) costs nothing
 * but a second grace if the same key is started again, which never happens for a new turn.
 */
export class AckGrace {
  readonly #deferred = new Set<string>();

  /** @param graceMs how long a run's acknowledgement is held back; 0 never holds one back. */
  constructor(readonly graceMs: number = ACK_GRACE_MS) {}

  /** True the first time for `runKey` (hold the acknowledgement back); false after (acknowledge now). */
  defer(runKey: string): boolean {
    if (this.graceMs <= 0) return false;
    if (this.#deferred.delete(runKey)) return false;
    if (this.#deferred.size >= MAX_REMEMBERED) {
      const oldest = this.#deferred.values().next().value;
      if (oldest !== undefined) this.#deferred.delete(oldest);
    }
    this.#deferred.add(runKey);
    return true;
  }

  /** Forgets `runKey` (its run was acknowledged). */
  forget(runKey: string): void {
    this.#deferred.delete(runKey);
  }
}
