/** Events kept regardless of age, per team. */
export const KEEP_EVENTS = 1_000;
/** Events younger than this are kept regardless of count (a day of `afterSeq` replay). */
export const KEEP_EVENTS_MS = 24 * 60 * 60 * 1_000;
/**
 * A team's log is pruned when its seq passes a multiple of this: one range delete per 64 events
 * instead of one per transaction (retention is a floor, so a few dozen more events kept is fine).
 */
export const PRUNE_EVERY = 64;

/** How a team's log is kept, as of one transaction's time. */
export interface EventRetention {
  /** Events kept regardless of age ({@link KEEP_EVENTS}). */
  readonly keep: number;
  /** Events created at or after this time are kept regardless of count ({@link KEEP_EVENTS_MS} before now). */
  readonly cutoff: string;
  /** The log is pruned when the team's seq passes a multiple of this ({@link PRUNE_EVERY}). */
  readonly every: number;
}

/** The retention a transaction at `now` (an ISO time) applies. */
export function retentionAt(now: string): EventRetention {
  return { keep: KEEP_EVENTS, cutoff: new Date(Date.parse(now) - KEEP_EVENTS_MS).toISOString(), every: PRUNE_EVERY };
}

/** Whether a flush of `n` events that took the team's seq to `last` passes a multiple of {@link PRUNE_EVERY}. */
export function passesPrunePoint(last: number, n: number): boolean {
  return Math.floor(last / PRUNE_EVERY) > Math.floor((last - n) / PRUNE_EVERY);
}
