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
   * Takes `tokens` tokens (default one) from `owner`'s bucket, all or none.
   *
   * @remarks A charge larger than the burst is cut to the burst: a full bucket always pays it, so
   * a costly operation waits at most for the bucket to fill instead of being refused for good.
   * @returns null when the operation may run, else the milliseconds until enough tokens are.
   */
  take(owner: string, tokens = 1): number | null {
    const cost = this.#cost(tokens);
    const bucket = this.#refill(owner);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return null;
    }
    return this.#waitMs(bucket, cost);
  }

  /** The milliseconds until `owner`'s bucket holds `tokens` tokens (0: now), taking nothing. */
  waitMs(owner: string, tokens: number): number {
    const cost = this.#cost(tokens);
    const bucket = this.#refill(owner);
    return bucket.tokens >= cost ? 0 : this.#waitMs(bucket, cost);
  }

  #cost(tokens: number): number {
    return Math.min(Math.max(1, tokens), this.#options.burst);
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

  #waitMs(bucket: Bucket, cost: number): number {
    // Less a hair, so floating-point noise never adds a millisecond to an exact wait.
    return Math.max(1, Math.ceil(((cost - bucket.tokens) * 1000) / this.#options.perSecond - 1e-9));
  }
}
