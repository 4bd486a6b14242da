import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { codePointLength, isStorableText } from '../text/text-measure.js';

/**
 * Checks a search query (empty allowed): a storable string of at most `maxChars` code points.
 * @returns the query unchanged.
 * @throws DomainError INVALID_INPUT with `{ field: 'query', maxChars }`.
 */
export function validateQuery(query: unknown, maxChars: number): string {
  if (typeof query !== 'string' || codePointLength(query) > maxChars || !isStorableText(query)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `The query must be at most ${maxChars} characters.`, {
      field: 'query',
      maxChars,
    });
  }
  return query;
}
