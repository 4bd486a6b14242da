import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nowTimestamp, toTimestamp } from './clock.js';

describe('toTimestamp', () => {
  it('formats any instant as Date does, asked once, twice in a row, or between others', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { maxLength: 20 }), (instants) => {
        for (const ms of instants.flatMap((ms) => [ms, ms])) expect(toTimestamp(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('gives the kept text again for the same instant and a new one for the next', () => {
    expect(toTimestamp(1_764_460_800_000)).toBe('2025-11-30T00:00:00.000Z');
    expect(toTimestamp(1_764_460_800_000)).toBe('2025-11-30T00:00:00.000Z');
    expect(toTimestamp(1_764_460_800_001)).toBe('2025-11-30T00:00:00.001Z');
    expect(nowTimestamp({ nowMs: () => 1_764_460_800_001 })).toBe('2025-11-30T00:00:00.001Z');
  });

  it('refuses an instant that is not one, every time (nothing kept)', () => {
    for (let i = 0; i < 2; i += 1) {
      expect(() => toTimestamp(Number.NaN)).toThrow(RangeError);
      expect(() => toTimestamp(8.64e15 + 1)).toThrow(RangeError);
    }
    expect(toTimestamp(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
