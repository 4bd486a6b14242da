import type { Clock } from '@agent-teams/core';

/** Where every {@link FakeClock} starts unless told otherwise: 2026-01-01T00:00:00.000Z. */
export const FAKE_CLOCK_START_MS = Date.UTC(2026, 0, 1, 0, 0, 0, 0);

/**
 * A {@link Clock} that stands still until a test moves it.
 *
 * @remarks Time never passes on its own, so timestamps in assertions are exact and a test can
 * jump past a deadline (`advance(180_000)`) without waiting.
 */
export class FakeClock implements Clock {
  #nowMs: number;

  constructor(startMs: number = FAKE_CLOCK_START_MS) {
    this.#nowMs = startMs;
  }

  /** The current fake time in epoch milliseconds. */
  nowMs(): number {
    return this.#nowMs;
  }

  /** Moves time forward by `ms` (never backward: a negative step is a test bug). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`[agent-teams/testkit] FakeClock.advance needs a finite ms >= 0, got ${ms}`);
    }
    this.#nowMs += ms;
  }

  /** Sets the current time to `ms` since the epoch. */
  set(ms: number): void {
    if (!Number.isFinite(ms)) {
      throw new RangeError(`[agent-teams/testkit] FakeClock.set needs a finite ms, got ${ms}`);
    }
    this.#nowMs = ms;
  }
}
