import type { Clock } from '@agent-teams/core';

/**
 * One timer that fires at the earliest time anyone asked for (safety net, turn deadlines,
 * retry backoffs), then calls `onFire`. Later requests than the pending one are already covered:
 * the pass that runs at the earlier time asks again for what is still ahead.
 */
export class WakeTimer {
  readonly #onFire: () => void;
  readonly #clock: Clock;
  #timer: NodeJS.Timeout | null = null;
  #at = Number.POSITIVE_INFINITY;
  #stopped = false;

  constructor(onFire: () => void, clock: Clock) {
    this.#onFire = onFire;
    this.#clock = clock;
  }

  /** Makes sure the timer fires no later than `atMs` (epoch milliseconds). */
  wakeAt(atMs: number): void {
    if (this.#stopped || atMs >= this.#at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#at = atMs;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#at = Number.POSITIVE_INFINITY;
        this.#onFire();
      },
      Math.max(0, atMs - this.#clock.nowMs()),
    );
    // The server's listener keeps the process alive; a pending wake-up must not.
    this.#timer.unref();
  }

  /** Cancels the pending timer for good. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
