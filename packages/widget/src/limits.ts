/**
 * The server's text limits, checked in the browser before sending so the draft is never lost.
 *
 * @remarks Duplicated from the contract (README "Limits") on purpose: the widget imports nothing
 * internal at run time. Characters are code points; bytes are UTF-8 of the raw value.
 */
export const LIMITS = {
  teamName: { chars: 80, bytes: 160 },
  goal: { chars: 2000, bytes: 4000 },
  memberName: { chars: 80, bytes: 160 },
  task: { chars: 4000, bytes: 8000 },
  answer: { chars: 4000, bytes: 8000 },
  /** A team message (`sendMessage`, teamwork contract). */
  message: { chars: 4000, bytes: 8000 },
  interruptBytes: 8000,
  membersMin: 2,
  membersMax: 8,
} as const;

/** A length limit: code points and UTF-8 bytes. */
export interface TextLimit {
  readonly chars: number;
  readonly bytes: number;
}

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement). */
export function utf8Bytes(value: string): number {
  let bytes = 0;
  for (const ch of value) {
    const cp = ch.codePointAt(0) ?? 0;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Number of Unicode code points. */
export function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** Why a text cannot be sent, or null when it can. */
export type TextProblem = 'blank' | 'tooLong' | 'unstorable' | null;

/** True when the text holds U+0000 or an unpaired surrogate, which the server refuses (no store keeps them). */
export function hasUnstorable(value: string): boolean {
  if (value.includes('\u0000')) return true;
  for (const ch of value) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) return true;
  }
  return false;
}

/**
 * Checks a text the way the server does: storable, raw value (surrounding spaces included)
 * within both limits, non-blank after trimming.
 */
export function checkText(value: string, limit: TextLimit): TextProblem {
  if (hasUnstorable(value)) return 'unstorable';
  if (codePoints(value) > limit.chars || utf8Bytes(value) > limit.bytes) return 'tooLong';
  if (value.trim() === '') return 'blank';
  return null;
}

/** Cuts a string code point by code point so it fits both limits, then trims trailing spaces. */
export function truncateText(value: string, limit: TextLimit): string {
  let out = '';
  let chars = 0;
  let bytes = 0;
  for (const ch of value) {
    const b = utf8Bytes(ch);
    if (chars + 1 > limit.chars || bytes + b > limit.bytes) break;
    out += ch;
    chars++;
    bytes += b;
  }
  return out.trimEnd();
}

/**
 * Member names derived from agent titles: trimmed, cut to 80 characters / 160 bytes, and made
 * unique with " (2)", " (3)", … where the base is cut again so the suffixed name still fits.
 */
export function deriveMemberNames(titles: readonly string[]): string[] {
  const taken = new Set<string>();
  return titles.map((title) => {
    const base = truncateText(title.trim(), LIMITS.memberName) || 'Member';
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = ` (${n})`;
      const room = { chars: LIMITS.memberName.chars - suffix.length, bytes: LIMITS.memberName.bytes - suffix.length };
      name = `${truncateText(base, room)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}
