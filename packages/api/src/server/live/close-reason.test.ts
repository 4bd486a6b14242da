import { describe, expect, it } from 'vitest';
import { closeReason, MAX_CLOSE_REASON_BYTES } from './close-reason.js';

describe('closeReason', () => {
  const cases = [
    ['ASCII', 'a', 1],
    ['CJK', '数', 3],
    ['emoji', '😀', 4],
    ['lone surrogates', '\ud800', 3],
  ] as const;

  for (const [name, unit, bytes] of cases) {
    it(`keeps ${name} reasons of up to ${MAX_CLOSE_REASON_BYTES} bytes and cuts longer ones at a character`, () => {
      const most = Math.floor(MAX_CLOSE_REASON_BYTES / bytes);
      expect(closeReason(unit.repeat(most - 1))).toBe(unit.repeat(most - 1));
      expect(closeReason(unit.repeat(most))).toBe(unit.repeat(most));
      expect(closeReason(unit.repeat(most + 1))).toBe(unit.repeat(most));
      expect(Buffer.byteLength(closeReason(unit.repeat(500)))).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
    });
  }

  it('fits the bytes exactly at 123 and cuts at 124', () => {
    expect(Buffer.byteLength(closeReason('x'.repeat(123)))).toBe(123);
    expect(closeReason(`${'x'.repeat(122)}😀`)).toBe('x'.repeat(122));
  });
});
