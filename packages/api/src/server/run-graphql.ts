import type { OwnerId } from '@agent-teams/core';
import { type ExecutionResult, execute, type GraphQLError } from 'graphql';
import type { ApiContext } from '../schema/context.js';
import { exceedsJsonBytes } from './answer-size.js';
import type { PrepareDocument } from './live/connection-deps.js';
import { createMaskError } from './mask-error.js';
import type { GraphqlRunner } from './mcp/mcp-tools.js';
import type { OperationGuard } from './operation-guard.js';
import { limitError, REQUEST_LIMITS } from './request-limits.js';

/** What {@link createGraphqlRunner} uses: the server's own steps for one operation. */
export interface GraphqlRunnerDeps {
  /** Parses and validates a document through Yoga's envelop (its limits and caches included). */
  readonly prepare: PrepareDocument;
  readonly createContext: (viewer: OwnerId) => ApiContext;
  /** The one error edge (`mask-error.ts`). */
  readonly maskError: (error: unknown) => GraphQLError;
  /** The checks every operation passes after validation (rate limit, storable input, cost). */
  readonly guard: OperationGuard;
}

/**
 * Runs GraphQL operations in process as an authenticated owner, answering the JSON a client of
 * `/graphql` reads: the same schema, resolvers, request limits, operation guard, answer ceiling
 * and error mask, without HTTP.
 *
 * @remarks The steps the WebSocket endpoint takes for a query (`prepare`, the guard, then
 * graphql-js `execute` with the owner's context, then the mask), so an MCP owner tool is the
 * GraphQL operation itself, not a second implementation of it, and spends the owner's rate limit
 * as the operation would over HTTP.
 */
export function createGraphqlRunner(deps: GraphqlRunnerDeps): GraphqlRunner {
  return async (viewer, document, variables, log) => {
    // With the caller's logger, an unexpected error's line carries its request's id.
    const mask =
      log === undefined ? deps.maskError : (error: unknown) => createMaskError(log)(error, '') as GraphQLError;
    const masked = (errors: readonly unknown[] | undefined) => errors?.map((error) => mask(error).toJSON());
    const prepared = deps.prepare(document);
    if ('errors' in prepared) return { errors: masked(prepared.errors) };
    // Not a literal that begins with a spread (see `UNADMITTED` in the core): one per call.
    const refused = deps.guard(Object.assign({}, prepared, { operationName: null, variables, owner: viewer }));
    if (refused !== null) return { errors: masked([refused]) };
    const result: ExecutionResult = await execute({
      schema: prepared.schema,
      document: prepared.document,
      variableValues: variables,
      contextValue: deps.createContext(viewer),
    });
    if (exceedsJsonBytes(result.data, REQUEST_LIMITS.maxAnswerBytes)) {
      return { errors: masked([limitError('maxAnswerBytes')]) };
    }
    return {
      data: (result.data ?? null) as Record<string, unknown> | null,
      ...(result.errors ? { errors: masked(result.errors) } : {}),
    };
  };
}
