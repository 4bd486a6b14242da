/** The longest JSON text of a number (`-1.7976931348623157e+308`); NaN and ±Infinity write `null`. */
const MAX_NUMBER_CHARS = 24;

/**
 * Whether the JSON text of `value` would be longer than `maxBytes`, found without building it.
 *
 * @remarks Counts UTF-8 bytes of strings and keys (escaping aside), digits of numbers and the
 * punctuation, with an explicit stack and an early exit: an answer over the ceiling is refused
 * after walking `maxBytes` worth of it, never serialized. Objects reached twice count twice, as
 * in the JSON text. A first walk counts an upper bound without encoding anything (3 bytes per
 * UTF-16 unit, 24 characters per number): an answer far below the ceiling, nearly every one, is
 * cleared by it; only when that bound passes the ceiling are the exact bytes counted.
 */
export function exceedsJsonBytes(value: unknown, maxBytes: number): boolean {
  return exceeds(value, maxBytes, false) && exceeds(value, maxBytes, true);
}

/** One walk: `exact` counts UTF-8 bytes and digits; otherwise an upper bound of them. */
function exceeds(value: unknown, maxBytes: number, exact: boolean): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      total += (exact ? Buffer.byteLength(current, 'utf8') : current.length * 3) + 2;
    } else if (typeof current === 'number') {
      // JSON writes NaN and ±Infinity as `null`.
      total += exact ? (Number.isFinite(current) ? String(current).length : 4) : MAX_NUMBER_CHARS;
    } else if (typeof current === 'boolean' || current === null) {
      total += current === false ? 5 : 4;
    } else if (Array.isArray(current)) {
      // Brackets and commas.
      total += 1 + Math.max(1, current.length);
      for (const item of current) stack.push(item);
    } else if (typeof current === 'object') {
      let members = 0;
      for (const [key, item] of Object.entries(current as Record<string, unknown>)) {
        if (item === undefined) continue;
        members += 1;
        // Quotes and colon.
        total += (exact ? Buffer.byteLength(key, 'utf8') : key.length * 3) + 3;
        stack.push(item);
      }
      total += 1 + Math.max(1, members);
    }
    if (total > maxBytes) return true;
  }
  return false;
}
