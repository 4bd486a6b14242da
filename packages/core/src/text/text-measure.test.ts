import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  cutUtf16,
  exceedsCodePoints,
  findUnstorableText,
  hasLoneSurrogate,
  isStorableText,
  MEASURE_CHUNK_UNITS,
  MEASURE_WALK_UNITS,
  truncateUtf8,
  utf8ByteLength,
} from './text-measure.js';

/** Independent oracle: encodeURIComponent percent-encodes each UTF-8 byte (and throws on a lone surrogate). */
const oracleBytes = (s: string): number => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, 'x').length;

/** Reference: each code point's UTF-8 length, a lone surrogate 3 bytes (its WTF-8 length). */
function walkedBytes(s: string): number {
  let bytes = 0;
  for (const point of s) {
    const code = point.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

const HIGH = '\uD83D';
const LOW = '\uDE00';
/** Any UTF-16 code unit, so lone surrogates appear often. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

describe('codePointLength', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('数据库')).toBe(3);
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('')).toBe(0);
  });

  it('counts a lone surrogate as one code point', () => {
    expect(codePointLength(`a${HIGH}b`)).toBe(3);
    expect(codePointLength(`${LOW}${HIGH}`)).toBe(2);
  });

  it('agrees with Array.from for any string', () => {
    fc.assert(fc.property(fc.string({ unit: anyUnit }), (s) => codePointLength(s) === Array.from(s).length));
  });
});

describe('exceedsCodePoints', () => {
  const MAX = 5;
  it.each([
    ['ASCII', 'a'],
    ['CJK', '数'],
    ['emoji', '😀'],
    ['lone surrogate', HIGH],
  ])('is false at n−1 and n code points and true at n+1, in %s', (_label, unit) => {
    expect(exceedsCodePoints(unit.repeat(MAX - 1), MAX)).toBe(false);
    expect(exceedsCodePoints(unit.repeat(MAX), MAX)).toBe(false);
    expect(exceedsCodePoints(unit.repeat(MAX + 1), MAX)).toBe(true);
  });

  it('agrees with codePointLength for any string and limit, on either side of the units it skips', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit, maxLength: 40 }), fc.integer({ min: 0, max: 30 }), (s, max) => {
        expect(exceedsCodePoints(s, max)).toBe(codePointLength(s) > max);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', '数', '😀', HIGH, LOW), { maxLength: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (parts, max) => {
          const s = parts.join('');
          expect(exceedsCodePoints(s, max)).toBe(codePointLength(s) > max);
        },
      ),
    );
  });
});

describe('utf8ByteLength', () => {
  it('counts 1, 2, 3 and 4 byte characters', () => {
    expect(utf8ByteLength('a')).toBe(1);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('数')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
  });

  it('agrees with UTF-8 encoding for well-formed strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => utf8ByteLength(s) === oracleBytes(s)));
  });

  it('counts a lone surrogate as 3 bytes and still reports it as lone', () => {
    expect(utf8ByteLength(`${HIGH}a`)).toBe(4);
    expect(hasLoneSurrogate(`${HIGH}a`)).toBe(true);
  });

  it('agrees with walking the code units for any units, lone surrogates included, short or not', () => {
    fc.assert(fc.property(fc.string({ unit: anyUnit }), (s) => utf8ByteLength(s) === walkedBytes(s)));
    fc.assert(fc.property(fc.string({ unit: anyUnit, maxLength: 300 }), (s) => utf8ByteLength(s) === walkedBytes(s)));
  });

  it('counts the same on either side of the longest text it walks (n-1, n, n+1)', () => {
    const n = MEASURE_WALK_UNITS;
    for (const units of [n - 1, n, n + 1]) {
      for (const [unit, bytes] of [
        ['a', 1],
        ['数', 3],
        [HIGH, 3],
        [LOW, 3],
      ] as const) {
        expect(utf8ByteLength(unit.repeat(units))).toBe(units * bytes);
      }
      // Pairs: an odd length ends with a lone high surrogate.
      const pairs = '😀'.repeat(Math.ceil(units / 2)).slice(0, units);
      expect(utf8ByteLength(pairs)).toBe(Math.floor(units / 2) * 4 + (units % 2) * 3);
    }
  });

  it('measures past a chunk without splitting a pair at its edge (n-1, n, n+1)', () => {
    const n = MEASURE_CHUNK_UNITS;
    for (const before of [n - 2, n - 1, n, n + 1]) {
      const pad = 'a'.repeat(before);
      expect(utf8ByteLength(`${pad}😀b`)).toBe(before + 5);
      expect(utf8ByteLength(`${pad}数b`)).toBe(before + 4);
      expect(utf8ByteLength(`${pad}${HIGH}b`)).toBe(before + 4);
      expect(utf8ByteLength(`${pad}${HIGH}`)).toBe(before + 3);
      expect(utf8ByteLength(`${pad}${LOW}${HIGH}`)).toBe(before + 6);
    }
  });

  it('agrees with walking the code units on texts of several chunks', () => {
    const unit = fc.constantFrom('a', 'é', '数', '😀', HIGH, LOW);
    const run = fc.tuple(unit, fc.integer({ min: 1, max: MEASURE_CHUNK_UNITS })).map(([u, k]) => u.repeat(k));
    fc.assert(
      fc.property(fc.array(run, { maxLength: 6 }), (runs) => {
        const s = runs.join('');
        return utf8ByteLength(s) === walkedBytes(s);
      }),
      { numRuns: 60 },
    );
  });
});

describe('hasLoneSurrogate', () => {
  it('accepts valid pairs and rejects unpaired high or low surrogates', () => {
    expect(hasLoneSurrogate('😀 数 a')).toBe(false);
    expect(hasLoneSurrogate(HIGH)).toBe(true);
    expect(hasLoneSurrogate(LOW)).toBe(true);
    expect(hasLoneSurrogate(`${LOW}${HIGH}`)).toBe(true);
    expect(hasLoneSurrogate(`x${HIGH}${HIGH}${LOW}`)).toBe(true);
  });

  it('is true exactly when UTF-8 encoding would fail', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit }), (s) => {
        let encodable = true;
        try {
          encodeURIComponent(s);
        } catch {
          encodable = false;
        }
        return hasLoneSurrogate(s) === !encodable;
      }),
    );
  });
});

describe('truncateUtf8', () => {
  it('keeps text that fits and reports no truncation', () => {
    expect(truncateUtf8('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(truncateUtf8('数数', 6)).toEqual({ text: '数数', truncated: false });
  });

  it('drops a CJK character that would overflow instead of splitting it', () => {
    expect(truncateUtf8('数数', 5)).toEqual({ text: '数', truncated: true });
    expect(truncateUtf8('数数', 4)).toEqual({ text: '数', truncated: true });
    expect(truncateUtf8('数数', 2)).toEqual({ text: '', truncated: true });
  });

  it('never splits a surrogate pair', () => {
    expect(truncateUtf8('😀😀', 7)).toEqual({ text: '😀', truncated: true });
    expect(truncateUtf8('a😀', 4)).toEqual({ text: 'a', truncated: true });
  });

  it('returns the longest prefix within the budget, ending on a code point boundary', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(64), (s, max) => {
        const { text, truncated } = truncateUtf8(s, max);
        const points = Array.from(s);
        const kept = Array.from(text);
        expect(s.startsWith(text)).toBe(true);
        expect(oracleBytes(text)).toBeLessThanOrEqual(max);
        expect(truncated).toBe(text.length < s.length);
        expect(hasLoneSurrogate(text)).toBe(false);
        // Longest: adding the next code point would overflow.
        const next = points[kept.length];
        if (next !== undefined) expect(oracleBytes(text + next)).toBeGreaterThan(max);
      }),
    );
  });
});

describe('isStorableText', () => {
  it('refuses U+0000 and unpaired surrogates, accepts every other character', () => {
    expect(isStorableText('a 数 😀 \u0001 \uFFFF')).toBe(true);
    expect(isStorableText('\u0000')).toBe(false);
    expect(isStorableText(`a\u0000${'数'.repeat(3)}`)).toBe(false);
    expect(isStorableText(`😀${HIGH}`)).toBe(false);
  });

  it('is exactly "no NUL and no lone surrogate" for any string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: anyUnit }),
        (s) => isStorableText(s) === (!s.includes('\u0000') && !hasLoneSurrogate(s)),
      ),
    );
  });
});

describe('findUnstorableText', () => {
  it('names the first bad string by its path, and a bad key by position only', () => {
    expect(findUnstorableText({ a: ['ok', { b: 'x\u0000' }] })).toBe('a[1].b');
    expect(findUnstorableText({ a: { [`k${LOW}`]: 1 } })).toBe('a.(key)');
    expect(findUnstorableText(['fine', 1, null, true, { ok: '数😀' }])).toBeNull();
    expect(findUnstorableText('\u0000', 'input')).toBe('input');
  });

  it('walks nesting far deeper than the call stack allows', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(findUnstorableText(deep)).toMatch(/^(\[0\]){200000}$/);
  });
});

describe('cutUtf16', () => {
  it('keeps n - 1 and n units whole and cuts n + 1, never inside a surrogate pair', () => {
    expect(cutUtf16('ab', 3)).toBe('ab');
    expect(cutUtf16('abc', 3)).toBe('abc');
    expect(cutUtf16('abcd', 3)).toBe('abc');
    expect(cutUtf16('中文字x', 3)).toBe('中文字');
    // The emoji would straddle the cut: it is dropped whole.
    expect(cutUtf16('ab😀', 3)).toBe('ab');
    expect(cutUtf16('a😀b', 3)).toBe('a😀');
    // Lone surrogates count as one unit each.
    expect(cutUtf16('ab\ud800c', 3)).toBe('ab\ud800');
    expect(cutUtf16('ab\udc00c', 3)).toBe('ab\udc00');
    expect(cutUtf16('abc', 0)).toBe('');
  });
});
