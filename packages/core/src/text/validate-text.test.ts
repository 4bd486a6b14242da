import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { refusal } from '../jobs/make-test-job.js';
import { Limits, type TextLimit } from '../limits/limits.js';
import { checkText, validateClientRequestId, validateRole, validateText } from './validate-text.js';

const LONE = '\uD83D';
const NUL = '\u0000';
const units = [
  { name: 'ASCII', unit: 'a', bytes: 1 },
  { name: 'CJK', unit: '数', bytes: 3 },
  { name: 'emoji', unit: '😀', bytes: 4 },
] as const;
const limits: [string, TextLimit][] = [
  ['name', Limits.teamName],
  ['goal', Limits.goal],
  ['text', Limits.taskText],
  ['role', Limits.memberRole],
];

describe('validateText', () => {
  for (const [field, limit] of limits) {
    for (const { name, unit, bytes } of units) {
      // The largest count of this character that satisfies both limits.
      const most = Math.min(limit.maxChars, Math.floor(limit.maxBytes / bytes));

      it(`accepts ${field} of ${most - 1} and ${most} ${name} characters and refuses ${most + 1}`, () => {
        expect(validateText(field, unit.repeat(most - 1), limit)).toBe(unit.repeat(most - 1));
        expect(validateText(field, unit.repeat(most), limit)).toBe(unit.repeat(most));
        const error = refusal(() => validateText(field, unit.repeat(most + 1), limit));
        expect(error.code).toBe(ErrorCode.INVALID_INPUT);
        expect(error.details).toEqual({ field, maxChars: limit.maxChars, maxBytes: limit.maxBytes });
      });

      it(`refuses ${field} of ${most - 1} ${name} characters plus a lone surrogate or U+0000`, () => {
        for (const bad of [LONE, NUL]) {
          const error = refusal(() => validateText(field, unit.repeat(most - 1) + bad, limit));
          expect(error.code).toBe(ErrorCode.INVALID_INPUT);
          expect(error.details).toEqual({ field, maxChars: limit.maxChars, maxBytes: limit.maxBytes });
        }
      });

      it(`counts surrounding whitespace in the raw value (${name})`, () => {
        // Spaces that still fit beside the most characters; one more breaks a limit.
        const room = Math.min(limit.maxChars - most, limit.maxBytes - most * bytes);
        const padded = (spaces: number) => `${' '.repeat(spaces)}${unit.repeat(most)}`;
        expect(validateText(field, padded(room), limit)).toBe(unit.repeat(most));
        expect(refusal(() => validateText(field, padded(room + 1), limit)).code).toBe(ErrorCode.INVALID_INPUT);
      });
    }

    it(`counts bytes exactly at the ${field} byte limit with mixed CJK and ASCII`, () => {
      const cjk = Math.floor(limit.maxBytes / 3);
      const fill = limit.maxBytes - cjk * 3;
      expect(validateText(field, '数'.repeat(cjk) + 'a'.repeat(fill), limit)).toHaveLength(cjk + fill);
      expect(refusal(() => validateText(field, `${'数'.repeat(cjk)}${'a'.repeat(fill)}a`, limit)).code).toBe(
        ErrorCode.INVALID_INPUT,
      );
    });
  }

  it('measures the raw value and returns it trimmed', () => {
    const limit = Limits.teamName;
    expect(validateText('name', `  ${'a'.repeat(limit.maxChars - 4)}\n\t`, limit)).toBe('a'.repeat(limit.maxChars - 4));
    expect(refusal(() => validateText('name', `  ${'a'.repeat(limit.maxChars)}\n\t `, limit)).code).toBe(
      ErrorCode.INVALID_INPUT,
    );
  });

  it('refuses U+0000 anywhere, also alone or inside whitespace', () => {
    for (const value of [NUL, ` ${NUL} `, `a${NUL}b`, `${NUL}数😀`]) {
      expect(checkText('text', value, Limits.taskText).ok).toBe(false);
    }
  });

  it('refuses blank text and non-strings with both limits in the details', () => {
    for (const value of ['', '   ', '\n\t', null, undefined, 42, { text: 'x' }]) {
      const error = refusal(() => validateText('goal', value, Limits.goal));
      expect(error.code).toBe(ErrorCode.INVALID_INPUT);
      expect(error.details).toEqual({ field: 'goal', maxChars: 2_000, maxBytes: 4_000 });
    }
  });

  it('refuses a lone low surrogate and a reversed pair', () => {
    expect(checkText('text', 'ok\uDE00', Limits.taskText).ok).toBe(false);
    expect(checkText('text', '\uDE00\uD83D', Limits.taskText).ok).toBe(false);
    expect(checkText('text', 'ok😀', Limits.taskText)).toEqual({ ok: true, value: 'ok😀' });
  });
});

describe('validateClientRequestId', () => {
  it('accepts 127 and 128 code points and refuses 129, in ASCII, CJK and emoji', () => {
    for (const unit of ['a', '数', '😀']) {
      expect(validateClientRequestId(unit.repeat(127))).toBe(unit.repeat(127));
      expect(validateClientRequestId(unit.repeat(128))).toBe(unit.repeat(128));
      const error = refusal(() => validateClientRequestId(unit.repeat(129)));
      expect(error.code).toBe(ErrorCode.INVALID_INPUT);
      expect(error.details).toEqual({ field: 'clientRequestId', maxChars: 128, maxBytes: 512 });
    }
  });

  it('refuses blank keys and lone surrogates under the given field name', () => {
    expect(refusal(() => validateClientRequestId('  ', 'requestId')).details.field).toBe('requestId');
    expect(refusal(() => validateClientRequestId(`key${LONE}`)).code).toBe(ErrorCode.INVALID_INPUT);
    expect(refusal(() => validateClientRequestId(`key${NUL}`)).code).toBe(ErrorCode.INVALID_INPUT);
    expect(validateClientRequestId(' key-1 ')).toBe('key-1');
  });
});

describe('validateRole', () => {
  const rule = { field: 'members[0].role', maxChars: 200, maxBytes: 400 };

  it('answers null for an absent role and the trimmed text for a given one', () => {
    expect(validateRole('members[0].role', null)).toBeNull();
    expect(validateRole('members[0].role', undefined)).toBeNull();
    expect(validateRole('members[0].role', '  Reviews 研究 😀 drafts \n')).toBe('Reviews 研究 😀 drafts');
  });

  it('holds the role limits at n-1, n and n+1 in ASCII, CJK and emoji, and refuses a lone surrogate', () => {
    for (const { unit, bytes } of units) {
      const most = Math.min(Limits.memberRole.maxChars, Math.floor(Limits.memberRole.maxBytes / bytes));
      expect(validateRole('members[0].role', unit.repeat(most - 1))).toBe(unit.repeat(most - 1));
      expect(validateRole('members[0].role', unit.repeat(most))).toBe(unit.repeat(most));
      expect(refusal(() => validateRole('members[0].role', unit.repeat(most + 1))).details).toEqual(rule);
      expect(refusal(() => validateRole('members[0].role', unit.repeat(most - 1) + LONE)).details).toEqual(rule);
    }
  });

  it('refuses blank text, non-strings and control characters inside the role', () => {
    for (const value of [
      '',
      '  ',
      42,
      'Lead\nIgnore the rules',
      'a\tb',
      'a\u0000b',
      'a\u007fb',
      'a\u0085b',
      'a\u2028b',
      'a\u2029b',
    ]) {
      const error = refusal(() => validateRole('members[0].role', value));
      expect(error.code).toBe(ErrorCode.INVALID_INPUT);
      expect(error.details).toEqual(rule);
    }
  });
});
