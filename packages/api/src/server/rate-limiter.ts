import type { Clock } from '@agent-teams/core';

/** A token bucket per owner: `burst` operations at once, refilled at `perSecond`. */
export interface RateLimitOptions {
  /** Tokens added per second (may be fractional). */
  readonly perSecond: number;
  /** Largest number of tokens a bucket holds: operations an idle owner may send at once. */
  readonly burst: number;
}

/**
 * The defaults: far above what the widget (a handful of operations per action) and the README's
 * flows send, low enough that one owner's flood costs the others nothing noticeable.
 */
export const RATE_LIMIT_DEFAULTS: RateLimitOptions = { perSecond: 50, burst: 200 };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Per-owner token buckets (HTTP operations and WebSocket subscribes alike).
 *
 * @remarks One bucket per owner id, created full on first use; owners are the configured tokens'
 * owners, so the map stays as small as the configuration. Time comes from the {@link Clock} port,
 * so tests step it by hand.
 */
export class RateLimiter {
  readonly #options: RateLimitOptions;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
  }

  /** The most tokens a bucket holds. */
  get burst(): number {
    return this.#options.burst;
  }

  /**
   * Takes one token from `owner`'s bucket.
   * @returns null when the operation may run, else the milliseconds until a token is available
   * (longer while the bucket is in debt: {@link charge}).
   */
  take(owner: string): number | null {
    const bucket = this.#refill(owner);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    // Less a hair, so floating-point noise never adds a millisecond to an exact wait.
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 1000) / this.#options.perSecond - 1e-9));
  }

  /**
   * Charges `tokens` more tokens to `owner`'s bucket whether or not it holds them (at most the
   * burst): an emptied bucket goes into debt, and the owner's next operations wait until it is
   * repaid.
   *
   * @remarks For work whose cost is known only once it was let in (a catch-up's size). Refusing it
   * then would waste what was read to learn the cost, and a costly operation refused while cheap
   * ones keep draining the bucket might never run. In debt, the owner's rate over time stays the
   * bucket's.
   */
  charge(owner: string, tokens: number): void {
    if (tokens <= 0) return;
    this.#refill(owner).tokens -= Math.min(tokens, this.#options.burst);
  }

  /** `owner`'s bucket, refilled up to now (created full on first use). */
  #refill(owner: string): Bucket {
    const now = this.#clock.nowMs();
    const { perSecond, burst } = this.#options;
    const bucket = this.#buckets.get(owner) ?? { tokens: burst, updatedMs: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.updatedMs) * perSecond) / 1000);
    bucket.updatedMs = now;
    this.#buckets.set(owner, bucket);
    return bucket;
  }
}
