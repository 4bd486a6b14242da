/** Defaults of {@link RetryBackoff}: 250 ms doubling up to 30 s. */
export const RETRY_BASE_MS = 250;
export const RETRY_CAP_MS = 30_000;

/**
 * Exponential backoff per key (a job id, or the admission step).
 *
 * @remarks A failing database write or runtime call in one team is retried with this, so a
 * broken team is tried less and less often while the others keep running; success resets it.
 */
export class RetryBackoff {
  readonly #entries = new Map<string, { attempt: number; notBefore: number }>();
  readonly #baseMs: number;
  readonly #capMs: number;

  constructor(baseMs = RETRY_BASE_MS, capMs = RETRY_CAP_MS) {
    this.#baseMs = baseMs;
    this.#capMs = capMs;
  }

  /** Records a failure at `nowMs`; returns when the next attempt may start. */
  failed(key: string, nowMs: number): number {
    const attempt = (this.#entries.get(key)?.attempt ?? 0) + 1;
    const delay = Math.min(this.#capMs, this.#baseMs * 2 ** (attempt - 1));
    const notBefore = nowMs + delay;
    this.#entries.set(key, { attempt, notBefore });
    return notBefore;
  }

  /** Forgets the failures of `key`. */
  succeeded(key: string): void {
    this.#entries.delete(key);
  }

  /** When the next attempt of `key` may start, or null when it is not backing off. */
  notBefore(key: string): number | null {
    return this.#entries.get(key)?.notBefore ?? null;
  }

  /** How many keys have failures on record. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Forgets every key whose next attempt was due more than `staleMs` before `nowMs`: one nobody
   * tried again since (a key whose attempts stopped, such as a job that ended elsewhere).
   */
  forgetStale(nowMs: number, staleMs: number): void {
    for (const [key, entry] of this.#entries) if (entry.notBefore + staleMs < nowMs) this.#entries.delete(key);
  }
}
