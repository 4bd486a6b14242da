import { DomainError, ErrorCode, findUnstorableText, isStorableText, type OwnerId } from '@agent-teams/core';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, getOperationAST, Kind, visit } from 'graphql';
import { operationCost } from './operation-cost.js';
import type { RateLimiter } from './rate-limiter.js';
import { limitError, REQUEST_LIMITS } from './request-limits.js';

/** An operation about to run, on either transport. */
export interface GuardedOperation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName: string | null | undefined;
  readonly variables: Readonly<Record<string, unknown>> | null | undefined;
  /** The authenticated owner; null for an anonymous request (refused by its resolvers anyway). */
  readonly owner: OwnerId | null;
}

/** Decides whether an operation may run: null, or the error it is refused with (not yet masked). */
export type OperationGuard = (operation: GuardedOperation) => DomainError | GraphQLError | null;

/** Root mutation fields the rate limiter never refuses: answering a question, cancelling a job. */
const NEVER_LIMITED = new Set(['respond', 'cancelJob', '__typename']);

/**
 * The checks every operation passes after it parsed and validated, over HTTP and on every
 * WebSocket `subscribe` alike: the owner's rate limit, storable input, and the cost with its
 * variables.
 *
 * @remarks The rate limit comes first, so refused operations still spend the owner's tokens.
 * Input strings holding what a database cannot store (U+0000, unpaired surrogates), in variables
 * or in the document, are refused as INVALID_INPUT for every field at once (ids, filters,
 * cursors, JSON), so both stores answer the same. The cost needs the variables, which the
 * validation step never sees, which is why it runs here and not as a validation rule.
 */
export function createOperationGuard(options: { readonly rateLimiter: RateLimiter | null }): OperationGuard {
  return (operation) => {
    if (operation.owner !== null && !neverLimited(operation)) {
      const limited = takeToken(options.rateLimiter, operation.owner);
      if (limited !== null) return limited;
    }
    const field = unstorableInput(operation);
    if (field !== null) {
      return new DomainError(ErrorCode.INVALID_INPUT, 'Input must not hold U+0000 or unpaired surrogates.', { field });
    }
    const cost = operationCost(operation.schema, operation.document, operation.operationName, operation.variables);
    return cost > REQUEST_LIMITS.maxCost ? limitError('maxCost') : null;
  };
}

/**
 * Takes one token from `owner`'s bucket: null when the operation may run, else the RATE_LIMITED
 * refusal carrying `retryAfterMs`. Also what the A2A endpoint asks before a new request.
 */
export function takeToken(rateLimiter: RateLimiter | null, owner: OwnerId): DomainError | null {
  const retryAfterMs = rateLimiter?.take(owner) ?? null;
  if (retryAfterMs === null) return null;
  return new DomainError(ErrorCode.RATE_LIMITED, 'Too many operations; retry after the given delay.', {
    retryAfterMs,
  });
}

/** Whether the operation is a mutation of answers and cancels only. */
function neverLimited({ document, operationName }: GuardedOperation): boolean {
  const operation = getOperationAST(document, operationName ?? null);
  if (operation?.operation !== 'mutation') return false;
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && NEVER_LIMITED.has(selection.name.value),
  );
}

/** `$name.path` of the first unstorable variable string, `query` for a literal in the document, or null. */
function unstorableInput({ document, operationName, variables }: GuardedOperation): string | null {
  const path = findUnstorableText(withoutAnswers(document, operationName, variables ?? {}));
  if (path !== null) return `$${path}`;
  return hasUnstorableLiteral(document) ? 'query' : null;
}

/**
 * `variables` without the answers of `respond` (`RespondInput.response`, as a variable of its own
 * or inside the input's): those are checked by `respond` itself, which refuses what a store cannot
 * keep as INVALID_RESPONSE with the rule of the question's kind, as documented for an answer.
 */
function withoutAnswers(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const operation = getOperationAST(document, operationName ?? null);
  if (operation?.operation !== 'mutation') return variables;
  let copy: Record<string, unknown> | null = null;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.name.value !== 'respond') continue;
    const input = selection.arguments?.find((argument) => argument.name.value === 'input')?.value;
    copy ??= { ...variables };
    if (input?.kind === Kind.VARIABLE) {
      const value = copy[input.name.value];
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        copy[input.name.value] = { ...value, response: null };
      }
    } else if (input?.kind === Kind.OBJECT) {
      const response = input.fields.find((field) => field.name.value === 'response')?.value;
      if (response?.kind === Kind.VARIABLE) copy[response.name.value] = null;
    }
  }
  return copy ?? variables;
}

/**
 * Documents already checked for unstorable string literals. The parser cache hands the same
 * document object to every request with the same text, so one walk serves them all (the walk
 * cost about 1.5 % of a `sendRequest`'s CPU).
 */
const checkedDocuments = new WeakMap<DocumentNode, boolean>();

/** True when a string literal of the document holds what a database cannot store. */
function hasUnstorableLiteral(document: DocumentNode): boolean {
  const known = checkedDocuments.get(document);
  if (known !== undefined) return known;
  let literal = false;
  visit(document, {
    StringValue(node) {
      if (!isStorableText(node.value)) literal = true;
    },
  });
  checkedDocuments.set(document, literal);
  return literal;
}
