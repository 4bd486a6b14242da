/**
 * The longest text of a JavaScript number: a sign, `0.`, five zeros and 17 digits
 * (`-0.0000012345678901234567`); NaN and ±Infinity write `null`.
 */
const MAX_NUMBER_CHARS = 25;

/**
 * The most UTF-8 bytes JSON writes for one UTF-16 unit of a string: a control character or a
 * lone surrogate is escaped as `\u001f` (6 bytes); anything else takes 1–3 bytes per unit.
 */
const MAX_BYTES_PER_UNIT = 6;

/**
 * Whether the JSON text of `value` would be longer than `maxBytes`, found without building it.
 *
 * @remarks Counts what `JSON.stringify` writes: the UTF-8 bytes of strings and keys with their
 * escapes, the digits of numbers, the punctuation, `null` for an array item JSON cannot write; an
 * object's `toJSON` is not called (a GraphQL result has none). An explicit stack and an early
 * exit: an answer over the ceiling is refused after walking `maxBytes` worth of it, never
 * serialized. Objects reached twice count twice, as in the JSON text. A first walk counts an
 * upper bound without encoding anything (6 bytes per UTF-16 unit, 25 characters per number): an
 * answer far below the ceiling, nearly every one, is cleared by it; only when that bound passes
 * the ceiling are the exact bytes counted.
 */
export function exceedsJsonBytes(value: unknown, maxBytes: number): boolean {
  return exceeds(value, maxBytes, false) && exceeds(value, maxBytes, true);
}

/** The JSON bytes of a string, quotes and escapes included: exact, or an upper bound. */
function stringBytes(text: string, exact: boolean): number {
  return exact ? Buffer.byteLength(JSON.stringify(text), 'utf8') : text.length * MAX_BYTES_PER_UNIT + 2;
}

/** True for a value JSON leaves out of an object and writes as `null` in an array. */
function unwritable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** One walk: `exact` counts UTF-8 bytes and digits; otherwise an upper bound of them. */
function exceeds(value: unknown, maxBytes: number, exact: boolean): boolean {
  // Nothing at all is written for it (an answer without data).
  if (unwritable(value)) return maxBytes < 0;
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      total += stringBytes(current, exact);
    } else if (typeof current === 'number') {
      // JSON writes NaN and ±Infinity as `null`.
      total += exact ? (Number.isFinite(current) ? String(current).length : 4) : MAX_NUMBER_CHARS;
    } else if (typeof current === 'boolean' || current === null || unwritable(current)) {
      // `false`; `true`, `null`, and an array item JSON cannot write (only items reach here).
      total += current === false ? 5 : 4;
    } else if (Array.isArray(current)) {
      // Brackets and commas.
      total += 1 + Math.max(1, current.length);
      for (const item of current) stack.push(item);
    } else if (typeof current === 'object') {
      let members = 0;
      for (const [key, item] of Object.entries(current as Record<string, unknown>)) {
        if (unwritable(item)) continue;
        members += 1;
        // The key with its quotes, and the colon.
        total += stringBytes(key, exact) + 1;
        stack.push(item);
      }
      total += 1 + Math.max(1, members);
    }
    if (total > maxBytes) return true;
  }
  return false;
}
