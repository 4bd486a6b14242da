import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { InputKind, type InputRequest } from '../model/job.js';
import { hashFilter } from '../pagination/cursor.js';
import { codePointLength, isStorableText, truncateUtf8, utf8ByteLength } from '../text/text-measure.js';

const CLARIFICATION_RULE =
  'Answer with text of 1 to 4,000 characters and at most 8,000 UTF-8 bytes, without U+0000 or unpaired surrogates.';
const INTERRUPT_RULE =
  'Respond with a JSON value of at most 8,000 UTF-8 bytes, nested at most 64 deep, without U+0000 or unpaired surrogates.';

/** The one friendly INVALID_RESPONSE of a kind, whatever was wrong (missing, too long, wrong type). */
export function invalidResponse(kind: InputKind): DomainError {
  return kind === InputKind.CLARIFICATION
    ? new DomainError(ErrorCode.INVALID_RESPONSE, CLARIFICATION_RULE, {
        field: 'response',
        kind,
        maxChars: Limits.clarificationAnswer.maxChars,
        maxBytes: Limits.clarificationAnswer.maxBytes,
      })
    : new DomainError(ErrorCode.INVALID_RESPONSE, INTERRUPT_RULE, {
        field: 'response',
        kind,
        maxBytes: Limits.interruptResponseBytes,
      });
}

/**
 * True when `value` is plain JSON data (null, boolean, finite number, string, array, plain
 * object), nested at most `Limits.interruptResponseDepth` deep, with only storable strings and
 * keys (no U+0000, no unpaired surrogate).
 *
 * @remarks Walks with an explicit stack: it runs before anything else touches an answer (the
 * idempotency fingerprint, `JSON.stringify`), so an answer nested far deeper than the call stack
 * is refused here instead of overflowing it.
 */
export function isWellFormedJson(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return false;
      continue;
    }
    if (typeof current === 'string') {
      if (!isStorableText(current)) return false;
      continue;
    }
    if (typeof current !== 'object' || depth >= Limits.interruptResponseDepth) return false;
    if (Array.isArray(current)) {
      for (const item of current) stack.push([item, depth + 1]);
      continue;
    }
    const proto = Object.getPrototypeOf(current);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const [key, item] of Object.entries(current)) {
      if (!isStorableText(key)) return false;
      stack.push([item, depth + 1]);
    }
  }
  return true;
}

/**
 * Whether an answer may be fingerprinted and decided on: any string (its limits are checked by
 * kind later), or well-formed JSON within the nesting limit ({@link isWellFormedJson}).
 */
export function isSafeToInspect(value: unknown): boolean {
  return typeof value === 'string' || isWellFormedJson(value);
}

/**
 * Checks a person's answer against what the job asks for: a clarification takes a non-blank
 * string (≤ 4,000 characters and ≤ 8,000 UTF-8 bytes as sent, stored trimmed); an interrupt takes
 * any JSON value nested at most 64 deep whose JSON text is ≤ 8,000 UTF-8 bytes. Pure.
 * @returns the value to store (the trimmed text, or the JSON value), or INVALID_RESPONSE.
 */
export function checkResponse(kind: InputKind, value: unknown): Result<unknown> {
  if (value === undefined) return err(invalidResponse(kind));
  if (kind === InputKind.CLARIFICATION) {
    if (typeof value !== 'string' || !isStorableText(value)) return err(invalidResponse(kind));
    const limit = Limits.clarificationAnswer;
    // The limits count the raw answer, as every text limit does; the stored answer is trimmed.
    if (codePointLength(value) > limit.maxChars || utf8ByteLength(value) > limit.maxBytes) {
      return err(invalidResponse(kind));
    }
    const text = value.trim();
    if (text.length === 0) return err(invalidResponse(kind));
    return ok(text);
  }
  if (!isWellFormedJson(value)) return err(invalidResponse(kind));
  const json = JSON.stringify(value);
  if (utf8ByteLength(json) > Limits.interruptResponseBytes) return err(invalidResponse(kind));
  return ok(value);
}

/** Hash of an answer's content, compared when a `clientRequestId` is used again on a job. */
export function responseFingerprint(value: unknown): string {
  return hashFilter({ response: typeof value === 'string' ? value.trim() : (value ?? null) });
}

/**
 * The human message that carries an answer into the member's conversation: it names the
 * question (an excerpt of at most 500 bytes) or the interrupt it answers, then the answer.
 */
export function answerMessage(input: InputRequest, value: unknown): string {
  if (input.kind === InputKind.CLARIFICATION) {
    const question = truncateUtf8(input.question, Limits.excerptBytes);
    return `Answer to your question "${question.text}${question.truncated ? '…' : ''}":\n${String(value)}`;
  }
  const payload = truncateUtf8(JSON.stringify(input.payload) ?? 'null', Limits.excerptBytes);
  return `Response to your interrupt ${payload.text}${payload.truncated ? '…' : ''}:\n${JSON.stringify(value)}`;
}

/**
 * What an answer key already used on the job means; the store decides it inside its transaction.
 * The same answer again is a replay (true: return the job as it is now); another answer under the
 * key is IDEMPOTENCY_CONFLICT; an unused key (`usedFingerprint` undefined) is a new answer (false).
 */
export function isAnswerReplay(usedFingerprint: string | undefined, fingerprint: string): boolean {
  if (usedFingerprint === undefined) return false;
  if (usedFingerprint === fingerprint) return true;
  throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This clientRequestId was used with another answer.', {
    field: 'clientRequestId',
  });
}
