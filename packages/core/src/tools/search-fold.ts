/**
 * The case-insensitive form of a text for literal substring search: Unicode lower case
 * (`toLowerCase`, locale-independent).
 *
 * @remarks Stores keep a folded copy of every searchable text (written with the same function), so
 * SQLite, PostgreSQL and the memory store answer the same for any script, not only ASCII; the
 * query is folded once here and compared with a plain substring test (`instr`/`strpos`), so no
 * character of it is ever a wildcard.
 */
export function foldSearchText(text: string): string {
  return text.toLowerCase();
}

/** True when `text` contains the already folded `foldedQuery`, ignoring case. */
export function matchesFolded(text: string, foldedQuery: string): boolean {
  return foldSearchText(text).includes(foldedQuery);
}
