/**
 * The directives of the `scripted` runtime, parsed from the text of one turn.
 *
 * @remarks Pure and total: every line starting with `!` becomes exactly one {@link Directive}, a
 * malformed one included (as `invalid`), so the runtime can fail the run with a message that
 * names the line instead of silently skipping it. Other lines are ignored, as the contract says.
 */
export type Directive =
  | { readonly kind: 'reply'; readonly text: string }
  | { readonly kind: 'ask'; readonly question: string }
  | { readonly kind: 'interrupt'; readonly payload: unknown }
  | { readonly kind: 'handoff'; readonly member: string; readonly text: string }
  | { readonly kind: 'tool'; readonly name: string; readonly args: unknown }
  | { readonly kind: 'fail'; readonly message: string }
  | { readonly kind: 'sleep'; readonly ms: number }
  | { readonly kind: 'stream'; readonly count: number }
  | { readonly kind: 'bytes'; readonly count: number }
  /** `wait_for_change` with this `timeout_ms`; the directives after it run once the wait ends. */
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'invalid'; readonly line: string; readonly reason: string };

/** Upper bounds of the numeric directives (the contract fixes `!sleep`; the others keep runs cheap). */
export const DirectiveLimits = {
  sleepMs: 600_000,
  streamDeltas: 1_000,
  bytes: 1_000_000,
  /** `!wait`: any whole number parses; the tool itself refuses what is outside 10,000–3,600,000. */
  waitMs: 999_999_999,
} as const;

/** Splits a turn's text into lines the way the runtime reads them. */
export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** Parses every directive line of a turn's text, in order. */
export function parseDirectives(text: string): Directive[] {
  return splitLines(text)
    .filter((line) => line.startsWith('!'))
    .map(parseDirectiveLine);
}

/** True when the directives need time to run (they cannot be answered inside `start`). */
export function needsBackground(directives: readonly Directive[]): boolean {
  return directives.some((d) => d.kind === 'sleep' || d.kind === 'stream');
}

/** Parses one line that starts with `!`. */
export function parseDirectiveLine(line: string): Directive {
  const match = /^!(\S*)\s*([\s\S]*)$/.exec(line);
  const name = match?.[1] ?? '';
  const rest = (match?.[2] ?? '').trim();
  const invalid = (reason: string): Directive => ({ kind: 'invalid', line, reason });
  switch (name) {
    case 'reply':
      return { kind: 'reply', text: rest };
    case 'ask':
      return rest === '' ? invalid('!ask needs a question') : { kind: 'ask', question: rest };
    case 'interrupt': {
      const payload = parseJson(rest);
      return payload.ok ? { kind: 'interrupt', payload: payload.value } : invalid('!interrupt needs JSON');
    }
    case 'handoff':
      return parseHandoff(rest, invalid);
    case 'tool': {
      const [toolName = '', argsText = ''] = splitFirstToken(rest);
      if (toolName === '') return invalid('!tool needs a tool name');
      const args = argsText === '' ? { ok: true as const, value: {} } : parseJson(argsText);
      return args.ok ? { kind: 'tool', name: toolName, args: args.value } : invalid('!tool arguments must be JSON');
    }
    case 'fail':
      return { kind: 'fail', message: rest === '' ? 'scripted failure' : rest };
    case 'sleep':
      return parseCount(rest, DirectiveLimits.sleepMs, (ms) => ({ kind: 'sleep', ms }), invalid);
    case 'stream':
      return parseCount(rest, DirectiveLimits.streamDeltas, (count) => ({ kind: 'stream', count }), invalid);
    case 'bytes':
      return parseCount(rest, DirectiveLimits.bytes, (count) => ({ kind: 'bytes', count }), invalid);
    case 'wait':
      return parseCount(rest, DirectiveLimits.waitMs, (ms) => ({ kind: 'wait', ms }), invalid);
    default:
      return invalid(`unknown directive !${name}`);
  }
}

/** `!handoff <member> <text>`; a member name with spaces is written in double quotes. */
function parseHandoff(rest: string, invalid: (reason: string) => Directive): Directive {
  let member: string;
  let text: string;
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    if (end < 0) return invalid('!handoff member name has no closing quote');
    member = rest.slice(1, end).trim();
    text = rest.slice(end + 1).trim();
  } else {
    [member = '', text = ''] = splitFirstToken(rest);
  }
  if (member === '') return invalid('!handoff needs a member name');
  if (text === '') return invalid('!handoff needs a text');
  return { kind: 'handoff', member, text };
}

function splitFirstToken(rest: string): [string, string] {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(rest);
  return match ? [match[1] ?? '', (match[2] ?? '').trim()] : ['', ''];
}

function parseCount(
  rest: string,
  max: number,
  make: (n: number) => Directive,
  invalid: (reason: string) => Directive,
): Directive {
  if (!/^\d{1,9}$/.test(rest)) return invalid('expected a whole number');
  const n = Number(rest);
  return n > max ? invalid(`at most ${max}`) : make(n);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
