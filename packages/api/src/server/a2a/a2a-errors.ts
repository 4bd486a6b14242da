import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ErrorCode, isDomainError, type Logger } from '@agent-teams/core';
import { UNEXPECTED_ERROR_MESSAGE } from '../mask-error.js';

/**
 * The A2A error of anything the core threw: the one mapping of the A2A edge, like `mask-error.ts`
 * for GraphQL. NOT_FOUND is TaskNotFoundError, NOT_WAITING_INPUT (a message for a task that asks
 * nothing) UnsupportedOperationError, every other domain refusal RequestMalformedError; each
 * carries our code (and field, and RATE_LIMITED's `retryAfterMs`) in its `ErrorInfo` metadata. The SDK's own protocol errors pass
 * unchanged; anything else is logged and masked.
 */
export function toA2aError(error: unknown, logger: Logger): A2AError | Error {
  if (!isDomainError(error)) {
    if (error instanceof A2AError) return error;
    logger.error('unexpected error in an A2A request', { error });
    return new Error(UNEXPECTED_ERROR_MESSAGE);
  }
  const metadata: Record<string, string> = { code: error.code };
  const { field, retryAfterMs } = (error.details ?? {}) as { field?: unknown; retryAfterMs?: unknown };
  if (typeof field === 'string') metadata.field = field;
  if (typeof retryAfterMs === 'number') metadata.retryAfterMs = String(retryAfterMs);
  const options = { message: error.message, metadata };
  if (error.code === ErrorCode.NOT_FOUND) return new TaskNotFoundError(options);
  if (error.code === ErrorCode.NOT_WAITING_INPUT) return new UnsupportedOperationError(options);
  return new RequestMalformedError(options);
}

/** Runs `call`, turning whatever it throws into an A2A error. */
export async function a2aCall<T>(logger: Logger, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toA2aError(error, logger);
  }
}
