import type { TeamEvent } from '@agent-teams/core';

/** Bounds of {@link OwnEvents}. */
export interface OwnEventsOptions {
  /** How long an event is remembered (default 60 s: a poll comes every 250 ms at most). */
  readonly maxAgeMs?: number;
  /** How many events are remembered at most (default 20,000), the oldest forgotten first. */
  readonly maxSize?: number;
}

/**
 * The events this server published itself recently (`teamId#seq`), so the change feed skips them
 * when it reads them back from the log: the local fan-out already had them.
 */
export class OwnEvents {
  readonly #maxAgeMs: number;
  readonly #maxSize: number;
  /** Key → when it was published; insertion order is age order. */
  readonly #seen = new Map<string, number>();

  constructor(opts: OwnEventsOptions = {}) {
    this.#maxAgeMs = opts.maxAgeMs ?? 60_000;
    this.#maxSize = opts.maxSize ?? 20_000;
  }

  /** How many events are remembered now. */
  get size(): number {
    return this.#seen.size;
  }

  /** Remembers events published at `nowMs`. */
  add(events: readonly TeamEvent[], nowMs: number): void {
    for (const event of events) this.#seen.set(key(event.teamId, event.seq), nowMs);
    this.#forget(nowMs);
  }

  /** True when this server published the event within the bounds. */
  has(teamId: string, seq: number, nowMs: number): boolean {
    this.#forget(nowMs);
    return this.#seen.has(key(teamId, seq));
  }

  #forget(nowMs: number): void {
    for (const [entry, at] of this.#seen) {
      if (this.#seen.size <= this.#maxSize && at > nowMs - this.#maxAgeMs) break;
      this.#seen.delete(entry);
    }
  }
}

function key(teamId: string, seq: number): string {
  return `${teamId}#${seq}`;
}
