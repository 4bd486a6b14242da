import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { codePointLength, hasLoneSurrogate } from '../text/text-measure.js';

/**
 * Checks a search query (empty allowed): a string of at most `maxChars` code points.
 * @returns the query unchanged.
 * @throws DomainError INVALID_INPUT with `{ field: 'query', maxChars }`.
 */
export function validateQuery(query: unknown, maxChars: number): string {
  if (typeof query !== 'string' || codePointLength(query) > maxChars || hasLoneSurrogate(query)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `The query must be at most ${maxChars} characters.`, {
      field: 'query',
      maxChars,
    });
  }
  return query;
}
