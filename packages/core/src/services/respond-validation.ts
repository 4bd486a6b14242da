import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { InputKind, type InputRequest } from '../model/job.js';
import { hashFilter } from '../pagination/cursor.js';
import { codePointLength, hasLoneSurrogate, truncateUtf8, utf8ByteLength } from '../text/text-measure.js';

const CLARIFICATION_RULE =
  'Answer with text of 1 to 4,000 characters and at most 8,000 UTF-8 bytes, without unpaired surrogates.';
const INTERRUPT_RULE = 'Respond with a JSON value of at most 8,000 UTF-8 bytes, without unpaired surrogates.';

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
 * object) with no unpaired surrogate in any string or key, at any depth.
 */
export function isWellFormedJson(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return !hasLoneSurrogate(value);
  if (Array.isArray(value)) return value.every((item) => isWellFormedJson(item, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.entries(value).every(([key, item]) => !hasLoneSurrogate(key) && isWellFormedJson(item, depth + 1));
}

/**
 * Checks a person's answer against what the job asks for: a clarification takes a non-blank
 * string (trimmed, ≤ 4,000 characters and ≤ 8,000 UTF-8 bytes); an interrupt takes any JSON value
 * whose JSON text is ≤ 8,000 UTF-8 bytes. Pure.
 * @returns the value to store (the trimmed text, or the JSON value), or INVALID_RESPONSE.
 */
export function checkResponse(kind: InputKind, value: unknown): Result<unknown> {
  if (value === undefined) return err(invalidResponse(kind));
  if (kind === InputKind.CLARIFICATION) {
    if (typeof value !== 'string') return err(invalidResponse(kind));
    const text = value.trim();
    const limit = Limits.clarificationAnswer;
    if (text.length === 0 || hasLoneSurrogate(text)) return err(invalidResponse(kind));
    if (codePointLength(text) > limit.maxChars || utf8ByteLength(text) > limit.maxBytes) {
      return err(invalidResponse(kind));
    }
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
