import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { makeTestJob, testContext } from '../jobs/make-test-job.js';
import { InputKind, type Job, JobPhase } from '../model/job.js';
import { utf8ByteLength } from '../text/text-measure.js';
import { decideResponse } from './respond-service.js';
import {
  answerMessage,
  checkResponse,
  isAnswerReplay,
  isSafeToInspect,
  responseFingerprint,
} from './respond-validation.js';

const EMOJI = '😀'; // 4 UTF-8 bytes, 1 character
const CJK = '中'; // 3 UTF-8 bytes

/** A JSON value whose JSON text is exactly `bytes` long: `{"p":"xx…"}` is 8 bytes plus the padding. */
const jsonOfBytes = (bytes: number) => ({ p: 'x'.repeat(bytes - 8) });

function codeOf(kind: InputKind, value: unknown): string | null {
  const checked = checkResponse(kind, value);
  return checked.ok ? null : checked.error.code;
}

describe('checkResponse for a clarification', () => {
  it('accepts 7,999 and 8,000 UTF-8 bytes and refuses 8,001 with INVALID_RESPONSE', () => {
    const b7999 = EMOJI.repeat(1999) + CJK;
    const b8000 = EMOJI.repeat(2000);
    const b8001 = `${EMOJI.repeat(1999)}xxxxx`;
    expect([utf8ByteLength(b7999), utf8ByteLength(b8000), utf8ByteLength(b8001)]).toEqual([7999, 8000, 8001]);
    expect(codeOf(InputKind.CLARIFICATION, b7999)).toBeNull();
    expect(codeOf(InputKind.CLARIFICATION, b8000)).toBeNull();
    expect(codeOf(InputKind.CLARIFICATION, b8001)).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('accepts 4,000 characters and refuses 4,001 even within the byte limit', () => {
    expect(codeOf(InputKind.CLARIFICATION, 'a'.repeat(4000))).toBeNull();
    expect(codeOf(InputKind.CLARIFICATION, 'a'.repeat(4001))).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('counts the raw answer: surrounding spaces count toward the limits, the stored answer is trimmed', () => {
    expect(checkResponse(InputKind.CLARIFICATION, ` ${'a'.repeat(3999)}`)).toEqual({
      ok: true,
      value: 'a'.repeat(3999),
    });
    expect(codeOf(InputKind.CLARIFICATION, ` ${'a'.repeat(4000)}`)).toBe(ErrorCode.INVALID_RESPONSE);
    expect(codeOf(InputKind.CLARIFICATION, `${EMOJI.repeat(2000)} `)).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('trims the answer and keeps CJK and emoji as given', () => {
    expect(checkResponse(InputKind.CLARIFICATION, `  青い空 ${EMOJI}  `)).toEqual({
      ok: true,
      value: `青い空 ${EMOJI}`,
    });
  });

  it('refuses missing, blank, non-string and lone-surrogate answers with the same single message', () => {
    const results = [undefined, null, '   ', 42, { a: 1 }, ['x'], 'ok\ud800', '\udc00x'].map((value) =>
      checkResponse(InputKind.CLARIFICATION, value),
    );
    const messages = new Set<string>();
    for (const result of results) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.code).toBe(ErrorCode.INVALID_RESPONSE);
      messages.add(result.error.message);
    }
    expect(messages.size).toBe(1);
  });
});

describe('checkResponse for an interrupt', () => {
  it('accepts JSON text of 7,999 and 8,000 bytes and refuses 8,001', () => {
    expect(codeOf(InputKind.INTERRUPT, jsonOfBytes(7999))).toBeNull();
    expect(codeOf(InputKind.INTERRUPT, jsonOfBytes(8000))).toBeNull();
    expect(codeOf(InputKind.INTERRUPT, jsonOfBytes(8001))).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('counts the escaped JSON text, not the characters', () => {
    // Each quote costs two bytes once escaped: 3,996 quotes make 7,992 + 8 = 8,000 bytes.
    expect(codeOf(InputKind.INTERRUPT, { p: '"'.repeat(3996) })).toBeNull();
    expect(codeOf(InputKind.INTERRUPT, { p: '"'.repeat(3997) })).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('accepts any JSON value: strings, numbers, booleans, null, arrays and objects', () => {
    for (const value of ['yes', 0, true, null, [1, 'two'], { approve: true, note: `${CJK}${EMOJI}` }]) {
      expect(codeOf(InputKind.INTERRUPT, value)).toBeNull();
    }
  });

  it('refuses lone surrogates anywhere in the value, keys included, and non-JSON values', () => {
    const bad = [
      undefined,
      '\ud800',
      { a: ['ok', { b: 'x\udc00' }] },
      { 'k\ud801': 1 },
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(0),
      () => 1,
    ];
    for (const value of bad) expect(codeOf(InputKind.INTERRUPT, value)).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('refuses U+0000 in any string or key, and nesting past 64 levels', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? [value] : { k: value };
      return value;
    };
    expect(codeOf(InputKind.INTERRUPT, nest(63))).toBeNull();
    expect(codeOf(InputKind.INTERRUPT, nest(64))).toBeNull();
    expect(codeOf(InputKind.INTERRUPT, nest(65))).toBe(ErrorCode.INVALID_RESPONSE);
    for (const value of ['\u0000', { a: 'x\u0000' }, { 'k\u0000': 1 }]) {
      expect(codeOf(InputKind.INTERRUPT, value)).toBe(ErrorCode.INVALID_RESPONSE);
    }
    expect(codeOf(InputKind.CLARIFICATION, 'blue\u0000')).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('refuses an answer nested far deeper than the call stack without overflowing it', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 500_000; i += 1) deep = [deep];
    expect(isSafeToInspect(deep)).toBe(false);
    expect(codeOf(InputKind.INTERRUPT, deep)).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('accepts every well-formed JSON value within the limit (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const fits = utf8ByteLength(JSON.stringify(value)) <= 8000;
        expect(checkResponse(InputKind.INTERRUPT, value).ok).toBe(fits);
      }),
      { numRuns: 200 },
    );
  });
});

function waiting(kind: InputKind): Job {
  const job = makeTestJob(JobPhase.WAITING_INPUT);
  return {
    ...job,
    pendingInput:
      kind === InputKind.CLARIFICATION
        ? { kind, requestId: 'input_1', question: 'Which colour?' }
        : { kind, requestId: 'input_1', payload: { approve: '?' } },
  };
}

const request = (value: unknown, inputRequestId: string | null = null) => ({
  value,
  clientRequestId: 'answer-1',
  inputRequestId,
  ...testContext(),
});

describe('decideResponse', () => {
  it('persists the answer with a human message that names the question', () => {
    const outcome = decideResponse(waiting(InputKind.CLARIFICATION), request('  blue '));
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.phase).toBe(JobPhase.ANSWERED);
    expect(outcome.job.pendingResponse).toMatchObject({ value: 'blue', inputRequestId: 'input_1' });
    expect(outcome.job.pendingResponse?.message).toBe('Answer to your question "Which colour?":\nblue');
  });

  it('refuses a job that is not waiting with NOT_WAITING_INPUT', () => {
    for (const phase of [JobPhase.QUEUED, JobPhase.RUNNING, JobPhase.RESUMING, JobPhase.COMPLETED]) {
      const outcome = decideResponse(makeTestJob(phase), request('blue'));
      expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.NOT_WAITING_INPUT);
    }
  });

  it('refuses an answer to a question the client no longer sees with INPUT_CHANGED', () => {
    const outcome = decideResponse(waiting(InputKind.CLARIFICATION), request('blue', 'input_0'));
    expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.INPUT_CHANGED);
  });

  it('takes a string for an interrupt (any JSON value) but refuses an object for a clarification', () => {
    expect(decideResponse(waiting(InputKind.INTERRUPT), request('yes')).ok).toBe(true);
    const outcome = decideResponse(waiting(InputKind.CLARIFICATION), request({ colour: 'blue' }));
    expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.INVALID_RESPONSE);
  });

  it('derives one run key per question, so a replayed answer never starts a second run', () => {
    const a = decideResponse(waiting(InputKind.CLARIFICATION), request('blue'));
    const b = decideResponse(waiting(InputKind.CLARIFICATION), request('red'));
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(a.job.runKey).toBe(b.job.runKey);
  });
});

describe('answerMessage and responseFingerprint', () => {
  it('names the interrupt payload it answers', () => {
    const input = { kind: InputKind.INTERRUPT, requestId: 'i', payload: { approve: '?' } } as const;
    expect(answerMessage(input, { ok: true })).toBe('Response to your interrupt {"approve":"?"}:\n{"ok":true}');
  });

  it('gives the same fingerprint to the same answer up to surrounding spaces and key order', () => {
    expect(responseFingerprint(' blue ')).toBe(responseFingerprint('blue'));
    expect(responseFingerprint({ a: 1, b: 2 })).toBe(responseFingerprint({ b: 2, a: 1 }));
    expect(responseFingerprint('blue')).not.toBe(responseFingerprint('red'));
  });
});

describe('isAnswerReplay', () => {
  it('treats an unused key as new, the same answer as a replay and another answer as a conflict', () => {
    expect(isAnswerReplay(undefined, 'f1')).toBe(false);
    expect(isAnswerReplay('f1', 'f1')).toBe(true);
    expect(() => isAnswerReplay('f1', 'f2')).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_CONFLICT' }));
  });
});
