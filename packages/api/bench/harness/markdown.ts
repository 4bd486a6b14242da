import type { BenchTable } from './benchmark.js';

/** Renders a Markdown table (pipes in cells escaped). */
export function renderTable(table: BenchTable): string {
  const cell = (value: string) => value.replaceAll('|', '\\|');
  const lines = [
    `| ${table.header.map(cell).join(' | ')} |`,
    `| ${table.header.map(() => '---').join(' | ')} |`,
    ...table.rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
  return (table.title ? [`**${table.title}**`, '', ...lines] : lines).join('\n');
}

/** Renders a table for the console: columns padded to their widest cell. */
export function renderConsoleTable(table: BenchTable): string {
  const all = [table.header, ...table.rows];
  const widths = table.header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) => row.map((value, column) => value.padEnd(widths[column] ?? 0)).join('  ');
  const body = [line(table.header), widths.map((width) => '-'.repeat(width)).join('  '), ...table.rows.map(line)];
  return (table.title ? [table.title, ...body] : body).join('\n');
}

const start = (name: string) => `<!-- bench:${name}:start -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

/**
 * A heading the bench never writes: hand-written notes say so in their heading ("(hand-written,
 * <date>)"; any case, with or without the hyphen), and must sit outside the markers.
 */
const HAND_WRITTEN_HEADING = /^ {0,3}#{1,6}[ \t].*\bhand-?written\b.*$/gim;

/**
 * The hand-written headings found between a section's markers, with the section's name: the
 * bench would delete them on its next run of that section. A note written just after a
 * section's start marker instead of just before it once lost a whole pass's notes that way.
 */
export function handWrittenInSections(document: string): string[] {
  const found: string[] = [];
  for (const match of document.matchAll(/<!-- bench:([\w-]+):start -->/g)) {
    const name = match[1] ?? '';
    const body = readSection(document, name) ?? '';
    for (const heading of body.matchAll(HAND_WRITTEN_HEADING)) found.push(`${name}: ${heading[0]}`);
  }
  return found;
}

/**
 * Replaces the block between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` with
 * `body`, or appends a new block at the end; text outside the markers is kept as it is.
 *
 * @throws when the block to replace holds a hand-written heading (it would be lost).
 */
export function replaceSection(document: string, name: string, body: string): string {
  const block = `${start(name)}\n${body.trim()}\n${end(name)}`;
  const from = document.indexOf(start(name));
  const to = document.indexOf(end(name));
  if (from !== -1 && to > from) {
    const kept = [...document.slice(from, to).matchAll(HAND_WRITTEN_HEADING)].map((heading) => heading[0]);
    if (kept.length > 0) throw new Error(handWrittenMessage(kept.map((heading) => `${name}: ${heading}`)));
    return document.slice(0, from) + block + document.slice(to + end(name).length);
  }
  const base = document.trimEnd();
  return `${base}${base.length > 0 ? '\n\n' : ''}${block}\n`;
}

/** The body of a section, or null when the document has none. */
export function readSection(document: string, name: string): string | null {
  const from = document.indexOf(start(name));
  const to = document.indexOf(end(name));
  if (from === -1 || to <= from) return null;
  return document.slice(from + start(name).length, to).trim();
}

/** The error text for hand-written headings found inside generated sections. */
export function handWrittenMessage(found: readonly string[]): string {
  return `[agent-teams/bench] hand-written text inside a generated section would be lost; move it outside the markers:\n  ${found.join('\n  ')}`;
}
