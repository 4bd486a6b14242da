/**
 * Port: the current time. Logic never reads the system clock; it asks this port, so tests can
 * freeze and jump time.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

/** ISO-8601 UTC timestamp with milliseconds, e.g. `2026-11-30T04:00:00.000Z`. */
export type Timestamp = string;

/** Formats epoch milliseconds as a {@link Timestamp}. */
export function toTimestamp(ms: number): Timestamp {
  return new Date(ms).toISOString();
}

/** The clock's current time as a {@link Timestamp}. */
export function nowTimestamp(clock: Clock): Timestamp {
  return toTimestamp(clock.nowMs());
}
