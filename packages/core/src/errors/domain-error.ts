import { ErrorCode } from './codes.js';

/** Structured details a client may branch on (e.g. `field`, `maxChars`, `maxBytes`). */
export type ErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

/**
 * An expected failure with a stable {@link ErrorCode}. Services throw it; the GraphQL edge maps
 * it once (Yoga's `maskError`) to a GraphQL error with `extensions.code` and the details.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

/** True when `error` is a {@link DomainError}, optionally with the given code. */
export function isDomainError(error: unknown, code?: ErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}

/** A value or a typed failure, for pure functions whose callers branch on the outcome. */
export type Result<T, E = DomainError> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: E };

/** Wraps a success. */
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
/** Wraps a failure. */
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/**
 * The NOT_FOUND of a team or job that is absent or another owner's: the two are never told apart,
 * so an id reveals nothing.
 */
export function notFound(entity: 'team' | 'job'): DomainError {
  return entity === 'team'
    ? new DomainError(ErrorCode.NOT_FOUND, 'Team not found.', { field: 'teamId' })
    : new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', { field: 'jobId' });
}
