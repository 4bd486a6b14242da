import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedRequestId, MAX_REQUEST_ID_CHARS } from './request-ids.js';

const n = MAX_REQUEST_ID_CHARS;

describe('acceptedRequestId', () => {
  it('keeps plain ASCII ids of n − 1 and n characters and refuses n + 1', () => {
    expect(acceptedRequestId('a'.repeat(n - 1))).toBe('a'.repeat(n - 1));
    expect(acceptedRequestId('a'.repeat(n))).toBe('a'.repeat(n));
    expect(acceptedRequestId('a'.repeat(n + 1))).toBeNull();
  });

  it.each([
    ['CJK', '请'],
    ['emoji', '🙂'],
    ['a lone surrogate', '\ud800'],
  ])('refuses %s at n − 1, n and n + 1 characters', (_name, char) => {
    for (const length of [n - 1, n, n + 1]) {
      const id = char.repeat(Math.ceil(length / char.length)).slice(0, length);
      expect(acceptedRequestId(id)).toBeNull();
      expect(acceptedRequestId(`a${id.slice(1)}`)).toBeNull();
    }
  });

  it('refuses empty, repeated and line-breaking headers', () => {
    expect(acceptedRequestId('')).toBeNull();
    expect(acceptedRequestId(undefined)).toBeNull();
    expect(acceptedRequestId(['a', 'b'])).toBeNull();
    expect(acceptedRequestId('a\nb')).toBeNull();
    expect(acceptedRequestId('{"level":"error"}')).toBeNull();
  });

  it('answers either the header itself, plain and within the limit, or null, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2 * n }), (header) => {
        const kept = acceptedRequestId(header);
        if (kept === null) return;
        expect(kept).toBe(header);
        expect(kept.length).toBeLessThanOrEqual(n);
        expect(kept).toMatch(/^[\x21-\x7e]+$/);
      }),
    );
  });
});
