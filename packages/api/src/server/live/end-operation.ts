import type { ExecutionResult, GraphQLError } from 'graphql';
import { exceedsJsonBytes } from '../answer-size.js';
import { limitError, REQUEST_LIMITS } from '../request-limits.js';
import type { OperationHost } from './connection-deps.js';
import type { Operation } from './operation-slots.js';
import { completeFrame, errorFrame, nextFrame } from './protocol.js';

/**
 * The ExecutionResult as JSON, with every error through the server's one mask; data over the
 * answer ceiling is replaced by a QUERY_LIMIT error before it is ever serialized.
 */
export function serializeResult(result: ExecutionResult, maskError: (error: unknown) => GraphQLError): string {
  if (exceedsJsonBytes(result.data, REQUEST_LIMITS.maxAnswerBytes)) {
    return JSON.stringify({ errors: [limitError('maxAnswerBytes')] });
  }
  if (!result.errors?.length) return JSON.stringify({ data: result.data });
  return JSON.stringify({ ...result, errors: result.errors.map((error) => maskError(error)) });
}

/** Sends `complete` and frees the operation's slot: its source ended. */
export function completeOperation(host: OperationHost, operation: Operation): void {
  if (operation.cancelled) return;
  host.writer.send(completeFrame(operation.id));
  host.finish(operation);
}

/** Sends a final result (`next`) and `complete`: a query, a mutation or a failed subscription. */
export function endOperation(host: OperationHost, operation: Operation, result: ExecutionResult): void {
  if (operation.cancelled) return;
  host.writer.send(nextFrame(operation.id, serializeResult(result, host.deps.maskError)));
  completeOperation(host, operation);
}

/** Sends `error`: the operation was refused before it ran (validation, limits). */
export function refuseOperation(host: OperationHost, operation: Operation, errors: readonly unknown[]): void {
  if (operation.cancelled) return;
  host.writer.send(
    errorFrame(
      operation.id,
      errors.map((error) => host.deps.maskError(error)),
    ),
  );
  host.finish(operation);
}
