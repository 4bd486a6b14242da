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
   * The most fields an answer may hold (see `operation-cost.ts`): every field counts 1, times the
   * length of every list around it, list sizes counted as asked (literal or variable) or at their
   * maximum when absent. Checked with the variables, after validation. A full team page (every
   * field of 100 jobs) costs about 4,000, the widget's largest document about 1,000; three nested
   * 100-item lists cost millions. The limit bounds how long one operation holds the event loop,
   * so how long another owner can wait behind it (`pnpm bench`, owner-isolation: 20,000 let a
   * 2 MiB overview of every team take 140 ms at p50 on 2 busy cores).
   */
  maxCost: 10_000,
  /**
   * Bytes of an answer's data as JSON (UTF-8 of its strings, escaping aside), checked before it
   * is serialized: the ceiling behind the cost limit, for fields whose text is large.
   */
  maxAnswerBytes: 16 * 1024 * 1024,
  /** Directives per operation. */
  maxDirectives: 50,
} as const;

/** Which named limit an operation broke (`extensions.limit` of a QUERY_LIMIT error). */
export type RequestLimitName = keyof typeof REQUEST_LIMITS;

/** The error of a broken limit: code QUERY_LIMIT, with the limit's name and value. */
export function limitError(limit: RequestLimitName): GraphQLError {
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
    // The cost needs the variables: it is checked by the operation guard, not as a validation rule.
    costLimit: { enabled: false },
    maxDirectives: { n: REQUEST_LIMITS.maxDirectives, onReject: reject('maxDirectives') },
    blockFieldSuggestion: { enabled: true },
  }) as Plugin;
}
