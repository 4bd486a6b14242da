/** The start and end markers of a section of `docs/reliability.md` owned by one script. */
export function markers(name: string): { start: string; end: string } {
  return { start: `<!-- reliability:${name}:start -->`, end: `<!-- reliability:${name}:end -->` };
}

/**
 * `doc` with the section `name` replaced by `body` (between its markers), or appended at the end
 * when the document has no such section yet. Text outside the markers is kept as it is.
 */
export function replaceSection(doc: string, name: string, body: string): string {
  const { start, end } = markers(name);
  const section = `${start}\n${body.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from >= 0 && to > from) return `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}`;
  return `${doc.trimEnd()}\n\n${section}\n`;
}
