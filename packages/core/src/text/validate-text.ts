import { ErrorCode } from '../errors/codes.js';
import { DomainError, err, ok, type Result } from '../errors/domain-error.js';
import { Limits, type TextLimit } from '../limits/limits.js';
import { codePointLength, isStorableText, utf8ByteLength } from './text-measure.js';

/** Formats a count the way people read it (`4,000`). */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function invalid(field: string, limit: TextLimit, problem: string | null): DomainError {
  const rule = `${field} must be 1 to ${grouped(limit.maxChars)} characters and at most ${grouped(limit.maxBytes)} UTF-8 bytes`;
  // Both limits travel in the details for every failure, so a client can show the rule whatever went wrong.
  return new DomainError(ErrorCode.INVALID_INPUT, problem === null ? `${rule}.` : `${rule}; ${problem}.`, {
    field,
    maxChars: limit.maxChars,
    maxBytes: limit.maxBytes,
  });
}

/**
 * Checks a text field without throwing: a string, non-blank after trimming, storable by both
 * databases (no U+0000, no unpaired surrogate), and within both limits as sent.
 *
 * @remarks The limits count the raw value, surrounding whitespace included, as the contract
 * says ("bytes are UTF-8 of the raw value") and as the widget checks before sending: a value the
 * widget lets through is never refused here, and the reverse.
 * @returns the trimmed value, or an INVALID_INPUT error naming `field` with both limits.
 */
export function checkText(field: string, value: unknown, limit: TextLimit): Result<string> {
  if (typeof value !== 'string') return err(invalid(field, limit, 'it must be text'));
  if (!isStorableText(value)) return err(invalid(field, limit, 'it holds U+0000 or an unpaired surrogate'));
  if (codePointLength(value) > limit.maxChars || utf8ByteLength(value) > limit.maxBytes) {
    return err(invalid(field, limit, null));
  }
  const trimmed = value.trim();
  if (trimmed.length === 0) return err(invalid(field, limit, 'it must not be blank'));
  return ok(trimmed);
}

/**
 * Validates a text field (see {@link checkText}) and returns the trimmed value to store.
 * @throws DomainError INVALID_INPUT with `{ field, maxChars, maxBytes }`.
 */
export function validateText(field: string, value: unknown, limit: TextLimit): string {
  const result = checkText(field, value, limit);
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * Validates an idempotency key: 1–128 code points as sent, non-blank, storable.
 * @throws DomainError INVALID_INPUT with the limits of `Limits.clientRequestId`.
 */
export function validateClientRequestId(value: unknown, field = 'clientRequestId'): string {
  return validateText(field, value, Limits.clientRequestId);
}

/**
 * True for a C0 or C1 control character (newline, tab, escape, ...) or Unicode's line and
 * paragraph separators (U+2028, U+2029): text that starts a new line wherever it is shown (a
 * model's prompt, JavaScript before ES2019, many renderers), and `JSON.stringify` leaves both raw.
 */
function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/**
 * Validates a member's role: absent (null or undefined) means none; otherwise like
 * {@link validateText} with `Limits.memberRole`, and one line without control characters or line
 * separators.
 *
 * @remarks The role is shown as one line: in the roster, in every member's team context and in
 * the member's own instructions, where a newline would start a line that reads like another rule.
 * Refusing control characters also bounds its JSON form to 400 bytes (a control character escapes
 * to six bytes, `"` and `\` to two), so eight roles, eight names and a goal of the worst kind still
 * leave room in the 24,000-byte team context.
 * @throws DomainError INVALID_INPUT with `{ field, maxChars, maxBytes }`.
 */
export function validateRole(field: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const role = validateText(field, value, Limits.memberRole);
  if ([...role].some(isControl))
    throw invalid(field, Limits.memberRole, 'it must be one line without control characters');
  return role;
}
