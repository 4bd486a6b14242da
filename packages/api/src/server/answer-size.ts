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
      total += 1 + current.length;
      for (const item of current) stack.push(item);
    } else if (typeof current === 'object') {
      const entries = Object.entries(current as Record<string, unknown>);
      total += 1 + entries.length;
      for (const [key, item] of entries) {
        if (item === undefined) continue;
        total += Buffer.byteLength(key, 'utf8') + 3;
        stack.push(item);
      }
    }
    if (total > maxBytes) return true;
  }
  return false;
}
