import { DomainError, ErrorCode, type Logger, type OwnerId } from '@agent-teams/core';
import type { ExecutionArgs, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestLogger } from '../observability/log-fields.js';
import { exceedsJsonBytes } from './answer-size.js';
import { createMaskError } from './mask-error.js';
import type { OperationGuard } from './operation-guard.js';
import { limitError, REQUEST_LIMITS } from './request-limits.js';

/** What the guard reads from an HTTP operation's context. */
interface GuardedContext {
  readonly viewer?: OwnerId | null;
  /** Present for HTTP requests only (Yoga puts it in every HTTP context). */
  readonly request?: Request;
}

/**
 * The Yoga plugin running the {@link OperationGuard} on every HTTP operation, refusing
 * subscriptions over HTTP (server-sent events) and holding every answer to the size ceiling.
 *
 * @remarks Subscriptions are served over the WebSocket endpoint only, where the per-socket and
 * per-owner caps, the keep-alive and the slow-consumer bound apply; over HTTP they would bypass
 * all of them (see the process-safety decision record). A refused operation's error goes through
 * the server's one mask, as every other error does. An operation's errors are masked here, with
 * the request's logger, so the line of an unexpected one carries its `requestId`; Yoga's own mask,
 * which runs after and knows no request, then finds them masked and passes them unchanged.
 */
export function useOperationGuard(
  guard: OperationGuard,
  maskError: (error: unknown) => GraphQLError,
  logger: Logger,
): Plugin {
  const check = (args: ExecutionArgs) =>
    guard({
      schema: args.schema,
      document: args.document,
      operationName: args.operationName,
      variables: args.variableValues,
      owner: (args.contextValue as GuardedContext).viewer ?? null,
    });
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = check(args);
      if (refused !== null) {
        setResultAndStopExecution({ errors: [maskError(refused)] });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          if (exceedsJsonBytes(result.data, REQUEST_LIMITS.maxAnswerBytes)) {
            setResult({ errors: [limitError('maxAnswerBytes')] });
            return;
          }
          const request = (args.contextValue as GuardedContext).request;
          if (result.errors === undefined || result.errors.length === 0 || request === undefined) return;
          const mask = createMaskError(requestLogger(logger, request.headers));
          setResult(Object.assign({}, result, { errors: result.errors.map((error) => mask(error, '')) }));
        },
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      if ((args.contextValue as GuardedContext).request === undefined) return;
      const error = new DomainError(
        ErrorCode.INVALID_INPUT,
        'Subscriptions are served over WebSocket only (subprotocol graphql-transport-ws on this path).',
        { field: 'operation' },
      );
      setResultAndStopExecution({ errors: [maskError(error)] });
    },
  };
}
