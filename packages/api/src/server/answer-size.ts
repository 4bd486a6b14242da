/**
 * Whether the JSON text of `value` would be longer than `maxBytes`, found without building it.
 *
 * @remarks Counts UTF-8 bytes of strings and keys (escaping aside), digits of numbers and the
 * punctuation, with an explicit stack and an early exit: an answer over the ceiling is refused
 * after walking `maxBytes` worth of it, never serialized. Objects reached twice count twice, as
 * in the JSON text.
 */
export function exceedsJsonBytes(value: unknown, maxBytes: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      total += Buffer.byteLength(current, 'utf8') + 2;
    } else if (typeof current === 'number' || typeof current === 'boolean' || current === null) {
      total += String(current).length;
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
        total += Buffer.byteLength(key, 'utf8') + 3;
        stack.push(item);
      }
      total += 1 + Math.max(1, members);
    }
    if (total > maxBytes) return true;
  }
  return false;
}
