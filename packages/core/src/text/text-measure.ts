/**
 * Measuring and cutting text the way the contract counts it: characters are Unicode code points,
 * bytes are UTF-8. Everything walks UTF-16 code units by hand instead of using `TextEncoder`,
 * because `TextEncoder` silently replaces a lone surrogate with U+FFFD and the caller could never
 * tell that the text was not well-formed.
 */

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** True when a surrogate pair starts at index `i` of `s`. */
function pairAt(s: string, i: number): boolean {
  return isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1));
}

/** UTF-8 length of the code point starting at `i`, and how many code units it spans. */
function unitAt(s: string, i: number): { bytes: number; units: number } {
  const unit = s.charCodeAt(i);
  if (unit < 0x80) return { bytes: 1, units: 1 };
  if (unit < 0x800) return { bytes: 2, units: 1 };
  if (pairAt(s, i)) return { bytes: 4, units: 2 };
  // Any other BMP unit, including a lone surrogate (3 bytes in WTF-8, see utf8ByteLength).
  return { bytes: 3, units: 1 };
}

/** Number of Unicode code points in `s`; a lone surrogate counts as one. */
export function codePointLength(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i += pairAt(s, i) ? 2 : 1) count += 1;
  return count;
}

/**
 * True when `s` has more than `max` code points (as {@link codePointLength} counts them).
 *
 * @remarks A code point spans one or two UTF-16 units, so the string's length decides alone
 * unless it lies between `max` and `2 · max`: a long text checked on every use (an agent's system
 * prompt, once per model call) is then not walked at all.
 */
export function exceedsCodePoints(s: string, max: number): boolean {
  if (s.length <= max) return false;
  if (s.length > 2 * max) return true;
  return codePointLength(s) > max;
}

/**
 * The one part of the WHATWG `TextEncoder` used here. Every JavaScript host the packages run on
 * (Node, browsers, workers) has it; declared here so the core needs neither DOM nor Node types.
 */
declare const TextEncoder: new () => {
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
};

/** The longest text {@link utf8ByteLength} walks unit by unit instead of encoding it. */
export const MEASURE_WALK_UNITS = 16;

/** UTF-8 length of a text, unit by unit (a lone surrogate: 3 bytes). */
function walkedUtf8Bytes(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; ) {
    const step = unitAt(s, i);
    bytes += step.bytes;
    i += step.units;
  }
  return bytes;
}

/** UTF-16 units measured per {@link TextEncoder} call: the scratch below holds 3 bytes for each. */
export const MEASURE_CHUNK_UNITS = 16_384;
let encoder: InstanceType<typeof TextEncoder> | null = null;
let scratch: Uint8Array | null = null;

/**
 * UTF-8 byte length of `s`.
 *
 * @remarks A lone surrogate has no UTF-8 form; it is counted as 3 bytes (its WTF-8 length) so a
 * budget stays an upper bound, but it is never turned into U+FFFD here. Inputs that must be
 * well-formed are refused first with {@link hasLoneSurrogate} (see `validateText`).
 *
 * Measured by encoding into a fixed scratch buffer, chunk by chunk (a chunk never ends inside a
 * pair): `encodeInto` writes U+FFFD (3 bytes) for a lone surrogate, the same count. About 40
 * times faster than walking the code units in JavaScript on ASCII (1.3 against 58 µs for 23,000
 * units on Node 20), which the team context's fitting does for every frozen turn.
 */
export function utf8ByteLength(s: string): number {
  // A short text is walked: a call of `encodeInto` costs about 50 ns, the walk about 3 ns a unit.
  if (s.length <= MEASURE_WALK_UNITS) return walkedUtf8Bytes(s);
  encoder ??= new TextEncoder();
  scratch ??= new Uint8Array(MEASURE_CHUNK_UNITS * 3);
  let bytes = 0;
  for (let at = 0; at < s.length; ) {
    let end = Math.min(at + MEASURE_CHUNK_UNITS, s.length);
    // Never split a pair: its halves would each count as a lone surrogate (3 + 3 bytes, not 4).
    if (end < s.length && isHigh(s.charCodeAt(end - 1))) end -= 1;
    // The scratch holds 3 bytes per unit of the chunk, so the whole chunk is always encoded.
    bytes += encoder.encodeInto(end - at === s.length ? s : s.slice(at, end), scratch).written;
    at = end;
  }
  return bytes;
}

/** True when `s` holds a surrogate code unit that is not part of a valid pair. */
export function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) {
    const unit = s.charCodeAt(i);
    if (isHigh(unit)) {
      if (!pairAt(s, i)) return true;
      i += 1;
    } else if (isLow(unit)) {
      return true;
    }
  }
  return false;
}

/**
 * True when both stores keep `s` exactly as given: no U+0000 (PostgreSQL refuses it in text and
 * JSON, SQLite stores it, so the two would disagree) and no unpaired surrogate (no UTF-8 form:
 * either driver would silently store U+FFFD instead).
 */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !hasLoneSurrogate(s);
}

/**
 * The path of the first string (value or object key) in a JSON-like value that is not
 * {@link isStorableText}, or null when every string is storable.
 *
 * @remarks Walks with an explicit stack, not recursion, so any nesting a parser accepted is
 * safe to check: a deep value is refused by its own limits later, never by a stack overflow here.
 */
export function findUnstorableText(value: unknown, root = ''): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [current, path] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (!isStorableText(current)) return path;
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) stack.push([current[i], `${path}[${i}]`]);
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        // A bad key is named by its position only: it is never echoed back.
        if (!isStorableText(key)) return path === '' ? '(key)' : `${path}.(key)`;
        stack.push([item, path === '' ? key : `${path}.${key}`]);
      }
    }
  }
  return null;
}

/** The outcome of {@link truncateUtf8}. */
export interface TruncatedText {
  readonly text: string;
  /** True when something was cut off. */
  readonly truncated: boolean;
}

/**
 * The longest prefix of `s` whose UTF-8 length is at most `maxBytes`, cut at a code point
 * boundary (a surrogate pair is never split; a character that would overflow is dropped whole).
 */
export function truncateUtf8(s: string, maxBytes: number): TruncatedText {
  // Every UTF-16 unit costs at most 3 bytes, so short strings need no walk.
  if (s.length * 3 <= maxBytes) return { text: s, truncated: false };
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const step = unitAt(s, i);
    if (bytes + step.bytes > maxBytes) break;
    bytes += step.bytes;
    i += step.units;
  }
  return i >= s.length ? { text: s, truncated: false } : { text: s.slice(0, i), truncated: true };
}

/**
 * The longest prefix of `text` within `maxUnits` UTF-16 units that does not split a surrogate
 * pair (a pair that would straddle the cut is dropped whole; a lone surrogate counts as one unit).
 */
export function cutUtf16(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (maxUnits <= 0) return '';
  const last = text.charCodeAt(maxUnits - 1);
  const next = text.charCodeAt(maxUnits);
  const splitsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
  return text.slice(0, splitsPair ? maxUnits - 1 : maxUnits);
}
