import { describe, expect, it } from 'vitest';
import { checkText, codePoints, deriveMemberNames, LIMITS, truncateText, utf8Bytes } from './limits.js';

const fits = (name: string) => codePoints(name) <= 80 && utf8Bytes(name) <= 160 && name === name.trim();

describe('text limits', () => {
  it('measures code points and UTF-8 bytes like the server', () => {
    expect([codePoints('😀a研'), utf8Bytes('😀a研')]).toEqual([3, 8]);
  });

  it.each([
    ['ASCII', 'a', 4000],
    ['CJK', '研', 2666],
    ['emoji', '😀', 2000],
  ])('accepts a task at n−1 and n and rejects n+1 (%s)', (_label, unit, n) => {
    expect(checkText(unit.repeat(n - 1), LIMITS.task)).toBeNull();
    expect(checkText(unit.repeat(n), LIMITS.task)).toBeNull();
    expect(checkText(unit.repeat(n + 1), LIMITS.task)).toBe('tooLong');
  });

  it('rejects blank text', () => {
    expect(checkText(' \n\t', LIMITS.task)).toBe('blank');
  });

  it('counts surrounding spaces, as the server does: n−1 characters and a space fit, n and a space do not', () => {
    expect(checkText(`${'a'.repeat(3999)} `, LIMITS.task)).toBeNull();
    expect(checkText(` ${'a'.repeat(4000)}`, LIMITS.task)).toBe('tooLong');
  });

  it('rejects U+0000 and lone surrogates before sending, at any length', () => {
    for (const text of ['\u0000', `${'a'.repeat(3999)}\u0000`, 'ok\ud800', '\udc00'.repeat(4001)]) {
      expect(checkText(text, LIMITS.task)).toBe('unstorable');
    }
    expect(checkText('😀 研 ok', LIMITS.task)).toBeNull();
  });

  it('truncates code point by code point within both limits and trims the end', () => {
    expect(truncateText(`${'a'.repeat(79)} b`, LIMITS.memberName)).toBe('a'.repeat(79));
    expect(truncateText('研'.repeat(60), LIMITS.memberName)).toBe('研'.repeat(53));
    expect(truncateText('😀'.repeat(50), LIMITS.memberName)).toBe('😀'.repeat(40));
  });
});

describe('member names derived from agent titles', () => {
  it.each([
    [[`${'X'.repeat(80)}A`, `${'X'.repeat(80)}B`, `${'X'.repeat(76)} (2)`]],
    [['Research', 'Research', 'Research (2)']],
    [['Research ', 'Research', ' Research']],
    [['研'.repeat(80), `${'研'.repeat(79)}究`, '😀'.repeat(50)]],
  ])('are unique, trimmed and within 80 characters and 160 bytes: %j', (titles) => {
    const names = deriveMemberNames(titles);
    expect(new Set(names).size).toBe(titles.length);
    for (const name of names) expect(fits(name)).toBe(true);
  });

  it('suffixes collisions with (2), (3)', () => {
    expect(deriveMemberNames(['Research', 'Research ', 'Research'])).toEqual([
      'Research',
      'Research (2)',
      'Research (3)',
    ]);
  });
});
