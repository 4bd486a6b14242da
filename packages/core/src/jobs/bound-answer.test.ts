import { describe, expect, it } from 'vitest';
import { Limits, TRUNCATION_NOTICE } from '../limits/limits.js';
import { utf8ByteLength } from '../text/text-measure.js';
import { boundAnswer } from './bound-answer.js';

describe('boundAnswer', () => {
  it('keeps 5,999 and 6,000 ASCII bytes whole and cuts 6,001 with the notice', () => {
    expect(boundAnswer('a'.repeat(5_999))).toEqual({ text: 'a'.repeat(5_999), truncated: false });
    expect(boundAnswer('a'.repeat(6_000))).toEqual({ text: 'a'.repeat(6_000), truncated: false });
    expect(boundAnswer('a'.repeat(6_001))).toEqual({ text: 'a'.repeat(6_000) + TRUNCATION_NOTICE, truncated: true });
  });

  it('drops a CJK character that straddles the 6,000-byte boundary', () => {
    // 1,999 CJK = 5,997 bytes; one more would end at 6,000 exactly and fits; two more do not.
    expect(boundAnswer('数'.repeat(2_000))).toEqual({ text: '数'.repeat(2_000), truncated: false });
    const cut = boundAnswer(`${'数'.repeat(1_999)}ab数`);
    expect(cut).toEqual({ text: `${'数'.repeat(1_999)}ab${TRUNCATION_NOTICE}`, truncated: true });
  });

  it('never splits an emoji at the boundary', () => {
    expect(boundAnswer('😀'.repeat(1_500)).truncated).toBe(false);
    const cut = boundAnswer(`a${'😀'.repeat(1_500)}`);
    expect(cut.text).toBe(`a${'😀'.repeat(1_499)}${TRUNCATION_NOTICE}`);
    expect(utf8ByteLength(cut.text)).toBe(Limits.answerBytes - 3 + utf8ByteLength(TRUNCATION_NOTICE));
  });
});
