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

/**
 * Forgets the values reported so far, as a new process would. For test runners that run several
 * test files in one process (`packages/api/vitest.config.ts`): each file then starts with the
 * full allowance of reports, as it would alone.
 */
export function forgetUnreadableReports(): void {
  reported.clear();
  reportsStopped = false;
}

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

/**
 * A stored JSON value of the shape `is` accepts, or null when it does not read or has another
 * shape (JSON's `null` too). Either is reported once, `what` naming the wrong shape: a text that
 * did not parse was reported by {@link readStoredJson} already, and a value is reported once.
 */
export function readStoredShape<T>(
  at: StoredAt,
  text: string | null,
  is: (value: unknown) => value is T,
  what: string,
): T | null {
  const value = readStoredJson<unknown>(at, text);
  if (is(value)) return value;
  reportUnreadable(at, what, text?.length ?? 0);
  return null;
}

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * A stored JSON list of ids, or `lost` (by default none) when it does not read or is not a list
 * of strings (reported once, as {@link readStoredShape} does).
 */
export function readStoredStrings(at: StoredAt, text: string, lost: string[] = []): string[] {
  return readStoredShape(at, text, isStringList, 'is not a list of strings') ?? lost;
}

const isRound = (value: unknown): value is RoundState =>
  typeof value === 'object' &&
  value !== null &&
  isStringList((value as Partial<RoundState>).rotation) &&
  isStringList((value as Partial<RoundState>).served);

/**
 * The admission round stored in `scheduler_state.round_json`, or null when it does not read (or
 * is not a round), reported once. Every pass reads it under the planning lock, so such a value
 * must not stop admission for every owner: the pass that reads null starts from the empty round
 * and stores it (`admission.ts`), which costs only the rotation's memory of who was served last.
 */
export function readStoredRound(text: string): RoundState | null {
  return readStoredShape(
    { table: 'scheduler_state', column: 'round_json', id: '1' },
    text,
    isRound,
    'is not an admission round',
  );
}
