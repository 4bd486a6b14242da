import { EMPTY_ROUND, type RoundState } from '@agent-teams/core';

/**
 * How many unreadable stored values are remembered as already reported, per process: each is
 * warned about once, and a database with many of them cannot grow the set or flood the log.
 */
export const UNREADABLE_REPORTS_KEPT = 256;

/** The warning type of {@link readStoredJson}'s reports (`process.on('warning')`). */
export const UNREADABLE_WARNING = 'AgentTeamsUnreadableState';

/** The values reported so far, as `table.column:id`, oldest first. */
const reported = new Set<string>();

/** Where a stored JSON value sits: for the report that names it. */
export interface StoredAt {
  readonly table: string;
  readonly column: string;
  /** The row's id (or a fixed name for a single-row table). */
  readonly id: string;
}

/**
 * A JSON column's value, or null when the stored text no longer parses (a hand-edited or
 * damaged database, a row written by a build that stored something else). Rows are read on
 * every scheduler pass: a value that throws would fail each pass for every team while its row
 * exists, where a null lets the one job it belongs to fail with STATE_LOST at the step that
 * needs it. The first read of each such value is reported as a process warning.
 */
export function readStoredJson<T>(at: StoredAt, text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    reportUnreadable(at, error);
    return null;
  }
}

/** Reports one unreadable stored value, once per value while it is remembered. */
export function reportUnreadable(at: StoredAt, error: unknown): void {
  const key = `${at.table}.${at.column}:${at.id}`;
  if (reported.has(key)) return;
  reported.add(key);
  if (reported.size > UNREADABLE_REPORTS_KEPT) reported.delete(reported.values().next().value as string);
  const why = error instanceof Error ? error.message : String(error);
  process.emitWarning(`${at.table}.${at.column} of ${at.id} does not read as JSON (${why}); read as empty`, {
    type: UNREADABLE_WARNING,
  });
}

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * A stored JSON list of ids: empty when it does not read or is not a list of strings (reported
 * once, as {@link readStoredJson} does).
 */
export function readStoredStrings(at: StoredAt, text: string): string[] {
  const list = readStoredJson<unknown>(at, text);
  if (isStringList(list)) return list;
  if (list !== null) reportUnreadable(at, new Error('not a list of strings'));
  return [];
}

/**
 * The admission round stored in `scheduler_state.round_json`. Every pass reads it under the
 * planning lock, so a value that does not read (or is not a round) would stop admission for
 * every owner: it reads as the empty round instead, reported once. That costs only the
 * rotation's memory of who was served last, which the next passes rebuild.
 */
export function readStoredRound(text: string): RoundState {
  const at = { table: 'scheduler_state', column: 'round_json', id: '1' };
  const round = readStoredJson<Partial<RoundState>>(at, text);
  if (round === null) return EMPTY_ROUND;
  if (typeof round === 'object' && round !== null && isStringList(round.rotation) && isStringList(round.served))
    return round as RoundState;
  reportUnreadable(at, new Error('not an admission round'));
  return EMPTY_ROUND;
}
