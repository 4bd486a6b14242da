import { DomainError, ErrorCode, type Logger } from '@agent-teams/core';
import { GraphQLError } from 'graphql';

/** The message every error that is not a {@link DomainError} is replaced with. */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

/**
 * The one mapping from thrown errors to what clients see (Yoga's `maskedErrors.maskError`,
 * which also runs for subscriptions over graphql-ws because they share Yoga's envelop).
 *
 * @remarks A {@link DomainError}, also when graphql-js wrapped it as `originalError`, becomes a
 * GraphQL error with `extensions.code` and its details; UNAUTHENTICATED also sets the HTTP
 * status 401, RATE_LIMITED 429 with `Retry-After` (both refuse the whole request). GraphQL's own request errors (syntax, validation, variables) pass unchanged.
 * Everything else is logged and replaced with "Unexpected error." so no internals leak.
 */
export function createMaskError(logger: Logger): (error: unknown, message: string) => Error {
  return (error) => {
    const domain = findDomainError(error);
    const located = error instanceof GraphQLError ? error : null;
    const where = {
      nodes: located?.nodes,
      path: located?.path,
      source: located?.source,
      positions: located?.positions,
    };
    if (domain) {
      const http = requestLevelHttp(domain);
      return new GraphQLError(domain.message, {
        ...where,
        extensions: { ...domain.details, code: domain.code, ...http },
      });
    }
    if (located && (located.originalError === undefined || located.originalError instanceof GraphQLError)) {
      return located;
    }
    logger.error('unexpected error in a GraphQL operation', {
      error: located?.originalError ?? error,
      path: located?.path?.join('.'),
    });
    return new GraphQLError(UNEXPECTED_ERROR_MESSAGE, where);
  };
}

/** The HTTP status (and headers) of a request-level refusal; nothing for field-level errors. */
function requestLevelHttp(domain: DomainError): { http?: { status: number; headers?: Record<string, string> } } {
  if (domain.code === ErrorCode.UNAUTHENTICATED) return { http: { status: 401 } };
  if (domain.code === ErrorCode.RATE_LIMITED) {
    const retryAfterMs = Number(domain.details.retryAfterMs) || 1000;
    return { http: { status: 429, headers: { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) } } };
  }
  return {};
}

/** The DomainError inside `error` (itself, or down its `originalError`/`cause` chain). */
function findDomainError(error: unknown): DomainError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof DomainError) return current;
    // A second copy of the core module would break `instanceof`; the shape is the contract.
    if (
      current instanceof Error &&
      current.name === 'DomainError' &&
      KNOWN_CODES.has(String((current as DomainError).code))
    ) {
      return current as DomainError;
    }
    current =
      current instanceof GraphQLError
        ? current.originalError
        : current instanceof Error
          ? ((current as Error & { originalError?: unknown }).originalError ?? current.cause)
          : null;
  }
  return null;
}
