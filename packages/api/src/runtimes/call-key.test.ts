import { Limits, validateClientRequestId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { callKey, HASHED_CALL_KEY_PREFIX } from './call-key.js';

const max = Limits.clientRequestId.maxChars;
/** A run key making `<runKey>:call_1` exactly `length` characters of `unit` (one character each). */
const runKeyFor = (length: number, unit: string) => unit.repeat(length - ':call_1'.length);

describe('callKey', () => {
  it.each([
    ['ASCII', 'r'],
    ['CJK', '数'],
    ['emoji', '😀'],
  ])('keeps the plain key of %s up to the limit and hashes the one past it', (_name, unit) => {
    const at = (length: number) => callKey(runKeyFor(length, unit), 'call_1');
    expect(at(max - 1)).toBe(`${runKeyFor(max - 1, unit)}:call_1`);
    expect(at(max)).toBe(`${runKeyFor(max, unit)}:call_1`);
    expect(at(max + 1).startsWith(HASHED_CALL_KEY_PREFIX)).toBe(true);
  });

  it('hashes a call id a key may not hold (a lone surrogate, U+0000)', () => {
    for (const id of ['call_\ud800', 'call_\u0000']) {
      expect(() => validateClientRequestId(`run:${id}`)).toThrow();
      expect(callKey('run', id).startsWith(HASHED_CALL_KEY_PREFIX)).toBe(true);
    }
  });

  it('gives a valid key, the same for the same run and call, another for another call', () => {
    const long = 'job_1:wake:'.repeat(40);
    const key = callKey(long, 'call_a');
    expect(validateClientRequestId(key)).toBe(key);
    expect(key.length).toBeLessThanOrEqual(max);
    expect(callKey(long, 'call_a')).toBe(key);
    expect(callKey(long, 'call_b')).not.toBe(key);
    expect(callKey(`${long}x`, 'call_a')).not.toBe(key);
  });
});
