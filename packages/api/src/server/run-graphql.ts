import type { OwnerId } from '@agent-teams/core';
import { type ExecutionResult, execute, type GraphQLError } from 'graphql';
import type { ApiContext } from '../schema/context.js';
import type { PrepareDocument } from './live/connection-deps.js';
import type { GraphqlRunner } from './mcp/mcp-tools.js';

/** What {@link createGraphqlRunner} uses: the server's own steps for one operation. */
export interface GraphqlRunnerDeps {
  /** Parses and validates a document through Yoga's envelop (its limits and caches included). */
  readonly prepare: PrepareDocument;
  readonly createContext: (viewer: OwnerId) => ApiContext;
  /** The one error edge (`mask-error.ts`). */
  readonly maskError: (error: unknown) => GraphQLError;
}

/**
 * Runs GraphQL operations in process as an authenticated owner, answering the JSON a client of
 * `/graphql` reads: the same schema, resolvers, request limits and error mask, without HTTP.
 *
 * @remarks The steps the WebSocket endpoint takes for a query (`prepare`, then graphql-js
 * `execute` with the owner's context, then the mask), so an MCP owner tool is the GraphQL
 * operation itself, not a second implementation of it.
 */
export function createGraphqlRunner(deps: GraphqlRunnerDeps): GraphqlRunner {
  const masked = (errors: readonly GraphQLError[] | undefined) =>
    errors?.map((error) => deps.maskError(error).toJSON());
  return async (viewer, document, variables) => {
    const prepared = deps.prepare(document);
    if ('errors' in prepared) return { errors: masked(prepared.errors) };
    const result: ExecutionResult = await execute({
      schema: prepared.schema,
      document: prepared.document,
      variableValues: variables,
      contextValue: deps.createContext(viewer),
    });
    return {
      data: (result.data ?? null) as Record<string, unknown> | null,
      ...(result.errors ? { errors: masked(result.errors) } : {}),
    };
  };
}
