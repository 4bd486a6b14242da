import { describe, expect, it } from 'vitest';
import { limitOf } from './budget-panel.js';

describe('limitOf (the budget form fields)', () => {
  it('reads an empty field as no limit and a positive number as the limit', () => {
    expect(limitOf('', true)).toBeNull();
    expect(limitOf('  ', false)).toBeNull();
    expect(limitOf('1000', true)).toBe(1000);
    expect(limitOf('2.5', false)).toBe(2.5);
  });

  it('refuses zero, negatives, text, fractions of tokens and tokens past a 32-bit Int', () => {
    for (const [value, integer] of [
      ['0', true],
      ['-3', false],
      ['ten', true],
      ['10.5', true],
      ['Infinity', false],
      [String(2 ** 31), true],
    ] as const) {
      expect(limitOf(value, integer)).toBeNaN();
    }
    expect(limitOf(String(2 ** 31 - 1), true)).toBe(2 ** 31 - 1);
    expect(limitOf(String(2 ** 31 - 2), true)).toBe(2 ** 31 - 2);
  });
});
