import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * The named limits every GraphQL operation is validated against, over HTTP and on every
 * graphql-ws subscribe alike (both run Yoga's envelop, where these plugins sit).
 *
 * @remarks Generous for the widget's and the contract's documents (the deepest contract query,
 * `teamEvents` with a job's member's agent, is depth 6), tight enough that one request cannot
 * make the server walk an unbounded tree.
 */
export const REQUEST_LIMITS = {
  /** Lexical tokens of the document (counted while parsing, before any validation). */
  maxTokens: 2_000,
  /** Depth of the deepest selection (introspection ignored). */
  maxDepth: 12,
  /** Aliased fields per operation (`__typename` aliases are free). */
  maxAliases: 30,
  /**
   * graphql-armor's cost: 2 per object, 1 per scalar, each level ×1.5, and a list's subtree times
   * its literal `first`. `viewer { teams(first: 100) { … jobs(first: 100) { … } } }` costs about
   * 650,000, so the limit stops three nested 100-item lists, not the pages the API serves.
   */
  maxCost: 5_000_000,
  /** Directives per operation. */
  maxDirectives: 50,
} as const;

/** Which named limit an operation broke (`extensions.limit` of a QUERY_LIMIT error). */
export type RequestLimitName = keyof typeof REQUEST_LIMITS;

/** The error of a broken limit: code QUERY_LIMIT, with the limit's name and value. */
function limitError(limit: RequestLimitName): GraphQLError {
  return new GraphQLError(`The operation exceeds the ${limit} limit of ${REQUEST_LIMITS[limit]}.`, {
    extensions: { code: 'QUERY_LIMIT', limit, max: REQUEST_LIMITS[limit] },
  });
}

/** Rejection handler: throws our coded error instead of graphql-armor's uncoded one. */
function reject(limit: RequestLimitName) {
  return [
    () => {
      throw limitError(limit);
    },
  ];
}

/**
 * The Yoga plugin enforcing {@link REQUEST_LIMITS} (graphql-armor 3.2.0), plus field-suggestion
 * blocking so a rejected query does not reveal the schema.
 */
export function useRequestLimits(): Plugin {
  return EnvelopArmorPlugin({
    maxTokens: { n: REQUEST_LIMITS.maxTokens, onReject: reject('maxTokens') },
    maxDepth: { n: REQUEST_LIMITS.maxDepth, onReject: reject('maxDepth') },
    maxAliases: { n: REQUEST_LIMITS.maxAliases, onReject: reject('maxAliases') },
    costLimit: { maxCost: REQUEST_LIMITS.maxCost, onReject: reject('maxCost') },
    maxDirectives: { n: REQUEST_LIMITS.maxDirectives, onReject: reject('maxDirectives') },
    blockFieldSuggestion: { enabled: true },
  }) as Plugin;
}
