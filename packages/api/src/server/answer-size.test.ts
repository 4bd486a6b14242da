import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonBytes } from './answer-size.js';

describe('exceedsJsonBytes', () => {
  it('agrees with the JSON text length for plain ASCII data, at n−1, n and n+1', () => {
    const value = { a: ['xyz', 12, true, null], b: { c: 'd' } };
    const n = JSON.stringify(value).length;
    expect(exceedsJsonBytes(value, n - 1)).toBe(true);
    expect(exceedsJsonBytes(value, n)).toBe(false);
    expect(exceedsJsonBytes(value, n + 1)).toBe(false);
  });

  it('counts UTF-8 bytes of CJK and emoji text', () => {
    const value = { t: '数😀' };
    const n = Buffer.byteLength(JSON.stringify(value));
    expect(exceedsJsonBytes(value, n - 1)).toBe(true);
    expect(exceedsJsonBytes(value, n)).toBe(false);
  });

  it('is never below the JSON text length of escape-free data (property)', () => {
    // Strings JSON writes as they are: no quote, backslash or control character to escape.
    const needsEscape = (s: string) => [...s].some((c) => c === '"' || c === '\\' || (c.codePointAt(0) ?? 0) < 0x20);
    const text = fc.string({ unit: 'grapheme' }).filter((s) => !needsEscape(s));
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(text, tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const bytes = Buffer.byteLength(JSON.stringify(value));
        expect(exceedsJsonBytes(value, bytes - 1)).toBe(true);
        expect(exceedsJsonBytes(value, bytes)).toBe(false);
      }),
    );
  });

  it('counts what JSON.stringify writes: escapes, lone surrogates, the longest numbers, unwritable items (property)', () => {
    const edge = [-0.0000012345678901234567, -1.7976931348623157e308, 5e-324, 1e21, -0, Number.NaN, -Infinity];
    const awkward = ['\u0001\u001f', '"\\', '\uD800', 'a\uDFFFb', '\u2028\n\t', '数😀'];
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...awkward));
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.constantFrom(...edge),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.oneof(tie('value'), fc.constant(undefined))),
        fc.dictionary(text, fc.oneof(tie('value'), fc.constant(undefined))),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.nat(64), (value, slack) => {
        const bytes = Buffer.byteLength(JSON.stringify(value));
        expect(exceedsJsonBytes(value, bytes - 1)).toBe(true);
        expect(exceedsJsonBytes(value, bytes)).toBe(false);
        expect(exceedsJsonBytes(value, bytes + slack)).toBe(false);
      }),
    );
  });

  it('refuses text of control characters by its escaped size, which is 6 bytes a character', () => {
    const value = { t: '\u0001'.repeat(1_000) };
    const n = Buffer.byteLength(JSON.stringify(value));
    expect(n).toBe(6_000 + 8);
    expect(exceedsJsonBytes(value, n - 1)).toBe(true);
    expect(exceedsJsonBytes(value, n)).toBe(false);
    expect(exceedsJsonBytes(value, 2_000)).toBe(true);
  });

  it('stops early: a list far larger than the ceiling is refused after about the ceiling', () => {
    const shared = 'x'.repeat(1024);
    const huge = Array.from({ length: 1_000_000 }, () => shared);
    expect(exceedsJsonBytes(huge, 10_000)).toBe(true);
    expect(exceedsJsonBytes(undefined, 0)).toBe(false);
  });
});
