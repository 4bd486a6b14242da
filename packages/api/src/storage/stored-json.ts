import type { RoundState } from '@agent-teams/core';

/**
 * How many unreadable stored values are reported, per process: each once, then one last warning
 * that says further ones go unreported, so a damaged database read on every pass cannot flood
 * the log (the set of reported values stays this small too).
 */
export const UNREADABLE_REPORTS_KEPT = 256;

/** The warning type of {@link readStoredJson}'s reports (`process.on('warning')`). */
export const UNREADABLE_WARNING = 'AgentTeamsUnreadableState';

/** The values reported so far, as `table.column:id`. */
const reported = new Set<string>();
// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find them.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** Whether the warning that reports stopped was given. */
let reportsStopped = false;

/** Where a stored JSON value sits: for the report that names it. */
export interface StoredAt {
  readonly table: string;
  readonly column: string;
  /** The row's id (or a fixed name for a single-row table). */
  readonly id: string;
  /** What the reader makes of the lost value, for the report (default "empty"). */
  readonly readAs?: string;
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
  } catch {
    reportUnreadable(at, 'does not read as JSON', text.length);
    return null;
  }
}

/**
 * Reports one unreadable stored value: once per value, for the first
 * {@link UNREADABLE_REPORTS_KEPT} values. The report names the row and the text's length, never
 * the text or the parser's message (which quotes it): a stored value may hold a secret, or
 * line breaks that would forge log lines.
 */
export function reportUnreadable(at: StoredAt, what: string, length: number): void {
  const key = `${at.table}.${at.column}:${at.id}`;
  if (reported.has(key)) return;
  if (reported.size >= UNREADABLE_REPORTS_KEPT) {
    if (!reportsStopped) {
      reportsStopped = true;
      process.emitWarning(`${UNREADABLE_REPORTS_KEPT} unreadable stored values reported; further ones are not`, {
        type: UNREADABLE_WARNING,
      });
    }
    return;
  }
  reported.add(key);
  const id = at.id.replace(CONTROL_CHARACTERS, '?');
  process.emitWarning(
    `${at.table}.${at.column} of ${id} ${what} (${length} characters); read as ${at.readAs ?? 'empty'}`,
    {
      type: UNREADABLE_WARNING,
    },
  );
}

/** True for a list whose items are all strings (what a stored list of ids must be). */
export const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * A stored JSON list of ids: empty when it does not read or is not a list of strings (reported
 * once, as {@link readStoredJson} does).
 */
export function readStoredStrings(at: StoredAt, text: string): string[] {
  const list = readStoredJson<unknown>(at, text);
  if (isStringList(list)) return list;
  // Text that parsed (JSON's `null` too) but is not a list; one that did not parse was reported
  // already, and a value is reported once.
  reportUnreadable(at, 'is not a list of strings', text.length);
  return [];
}

/**
 * The admission round stored in `scheduler_state.round_json`, or null when it does not read (or
 * is not a round), reported once. Every pass reads it under the planning lock, so such a value
 * must not stop admission for every owner: the pass that reads null starts from the empty round
 * and stores it (`admission.ts`), which costs only the rotation's memory of who was served last.
 */
export function readStoredRound(text: string): RoundState | null {
  const at = { table: 'scheduler_state', column: 'round_json', id: '1' };
  const round = readStoredJson<Partial<RoundState>>(at, text);
  if (round !== null && typeof round === 'object' && isStringList(round.rotation) && isStringList(round.served)) {
    return round as RoundState;
  }
  // Text that parsed (JSON's `null` too) but is not a round: reported here, once.
  reportUnreadable(at, 'is not an admission round', text.length);
  return null;
}
