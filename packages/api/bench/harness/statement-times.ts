/** Calls and total milliseconds per statement text (see {@link statementLabel}). */
export type StatementTimes = Map<string, { calls: number; ms: number }>;

/** Longest statement text shown in a table cell. */
const LABEL_CHARS = 110;

/**
 * A statement's text as one table row names it: whitespace collapsed, a list of placeholders
 * (`in (?, ?, ?)`, a multi-row `values (…), (…)`) shortened so the same statement with another
 * list length is the same row, and cut at {@link LABEL_CHARS}.
 */
export function statementLabel(text: string): string {
  const collapsed = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\((\?, )+\?\)/g, '(?…)')
    .replace(/(\(\?…\))(, \(\?…\))+/g, '$1…');
  return collapsed.length > LABEL_CHARS ? `${collapsed.slice(0, LABEL_CHARS - 1)}…` : collapsed;
}

/**
 * Runs `execute` (one better-sqlite3 call of the statement `text`) and adds its time to `times`.
 * A statement that throws counts too: its time was spent.
 */
export function timeStatement<T>(times: StatementTimes, text: string, execute: () => T): T {
  const started = performance.now();
  try {
    return execute();
  } finally {
    const label = statementLabel(text);
    const entry = times.get(label);
    const ms = performance.now() - started;
    if (entry === undefined) times.set(label, { calls: 1, ms });
    else {
      entry.calls += 1;
      entry.ms += ms;
    }
  }
}

/**
 * The `top` statements by total time as table rows (statement, calls per unit, µs per call, µs per
 * unit, share of all statements' time), then one row for the rest and one for the total; `units`
 * is what the times are divided by (jobs, turns).
 */
export function statementRows(times: StatementTimes, units: number, top: number): string[][] {
  const entries = [...times].sort((a, b) => b[1].ms - a[1].ms);
  const total = entries.reduce((sum, [, entry]) => sum + entry.ms, 0);
  const calls = entries.reduce((sum, [, entry]) => sum + entry.calls, 0);
  const per = Math.max(1, units);
  const row = (label: string, entry: { calls: number; ms: number }) => [
    label,
    (entry.calls / per).toFixed(2),
    entry.calls === 0 ? '–' : ((entry.ms * 1000) / entry.calls).toFixed(1),
    ((entry.ms * 1000) / per).toFixed(1),
    total === 0 ? '–' : `${((entry.ms / total) * 100).toFixed(1)} %`,
  ];
  const rows = entries.slice(0, top).map(([label, entry]) => row(`\`${label}\``, entry));
  const rest = entries
    .slice(top)
    .reduce((sum, [, entry]) => ({ calls: sum.calls + entry.calls, ms: sum.ms + entry.ms }), {
      calls: 0,
      ms: 0,
    });
  if (rest.calls > 0) rows.push(row(`the other ${entries.length - top} statements`, rest));
  rows.push(row('**all statements**', { calls, ms: total }));
  return rows;
}

/** The header of {@link statementRows}, naming the unit (`job`, `turn`). */
export function statementHeader(unit: string): string[] {
  return ['Statement', `Calls per ${unit}`, 'µs per call', `µs per ${unit}`, 'Share'];
}
