/** Tunables of a {@link ChangeCursor}. */
export interface ChangeCursorOptions {
  /** How long a missing change id is waited for before it is taken as rolled back. */
  readonly gapTimeoutMs: number;
  /** At most this many missing ids are waited for at once; the oldest are given up first. */
  readonly maxGaps?: number;
}

const DEFAULT_MAX_GAPS = 10_000;

/**
 * Where a server stands in the database-wide change feed (`team_events.change_id`), with the
 * ids it is still waiting for.
 *
 * @remarks A change id is taken from the sequence at INSERT, but becomes visible at COMMIT, so
 * a transaction holding a lower id can commit after one holding a higher id. Every id between
 * the cursor and the highest id seen that has not been seen yet is a gap: it is asked for again
 * by each read until it shows up (delivered then, once) or `gapTimeoutMs` passes (a rollback
 * or a retried write burns ids for good). Everything else up to {@link highest} was delivered,
 * so a read asks only for ids above it plus the gaps, and no id is ever delivered twice.
 */
export class ChangeCursor {
  readonly #gapTimeoutMs: number;
  readonly #maxGaps: number;
  /** Missing id → the time it is given up at. Ids are added in increasing order, and so are deadlines. */
  readonly #gaps = new Map<number, number>();
  #highest: number;
  #abandoned = 0;

  /** Starts after `start`: earlier changes are history, not news. */
  constructor(start: number, opts: ChangeCursorOptions) {
    this.#highest = start;
    this.#gapTimeoutMs = opts.gapTimeoutMs;
    this.#maxGaps = opts.maxGaps ?? DEFAULT_MAX_GAPS;
  }

  /** The highest change id seen. */
  get highest(): number {
    return this.#highest;
  }

  /** Every change id up to this one was delivered or given up; the cursor never passes a gap. */
  get position(): number {
    for (const id of this.#gaps.keys()) return id - 1;
    return this.#highest;
  }

  /** The missing ids a read must ask for besides those above {@link highest}, ascending. */
  get gaps(): readonly number[] {
    return [...this.#gaps.keys()];
  }

  /** Missing ids given up so far (timed out or over `maxGaps`). */
  get abandoned(): number {
    return this.#abandoned;
  }

  /**
   * Takes one id a read returned (call in ascending order within a read); true when it is news
   * to deliver, false when it was already delivered or given up.
   */
  accept(id: number, nowMs: number): boolean {
    if (this.#gaps.delete(id)) return true;
    if (id <= this.#highest) return false;
    const deadline = nowMs + this.#gapTimeoutMs;
    // A jump beyond the bound waits only for its top ids; the lower ones would be given up anyway.
    const first = Math.max(this.#highest + 1, id - this.#maxGaps);
    this.#abandoned += first - (this.#highest + 1);
    for (let missing = first; missing < id; missing += 1) this.#gaps.set(missing, deadline);
    this.#highest = id;
    for (const oldest of this.#gaps.keys()) {
      if (this.#gaps.size <= this.#maxGaps) break;
      this.#gaps.delete(oldest);
      this.#abandoned += 1;
    }
    return true;
  }

  /** Gives up the gaps whose deadline has passed; returns how many. */
  expire(nowMs: number): number {
    let count = 0;
    for (const [id, deadline] of this.#gaps) {
      if (deadline > nowMs) break;
      this.#gaps.delete(id);
      count += 1;
    }
    this.#abandoned += count;
    return count;
  }
}
