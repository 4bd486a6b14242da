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

/** The last instant {@link toTimestamp} formatted, and its text. */
let lastMs = Number.NaN;
let lastTimestamp: Timestamp = '';

/**
 * Formats epoch milliseconds as a {@link Timestamp}.
 *
 * @remarks The writes of one step stamp the same millisecond many times (a turn's profile had 57
 * µs in here, at about 0.5 µs per `Date` and `toISOString`), so the last answer is kept and given
 * again for the same instant. `NaN` never equals itself, so it is never kept.
 */
export function toTimestamp(ms: number): Timestamp {
  if (ms === lastMs) return lastTimestamp;
  const timestamp = new Date(ms).toISOString();
  lastMs = ms;
  lastTimestamp = timestamp;
  return timestamp;
}

/** The clock's current time as a {@link Timestamp}. */
export function nowTimestamp(clock: Clock): Timestamp {
  return toTimestamp(clock.nowMs());
}
