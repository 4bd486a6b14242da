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
