import { cutUtf16, DomainError, ErrorCode, type Logger } from '@agent-teams/core';
import { GraphQLError, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The message every error that is not a {@link DomainError} is replaced with. */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

/**
 * The one mapping from thrown errors to what clients see (Yoga's `maskedErrors.maskError`,
 * which also runs for subscriptions over graphql-ws because they share Yoga's envelop).
 *
 * @remarks A {@link DomainError}, also when graphql-js wrapped it as `originalError`, becomes a
 * GraphQL error with `extensions.code` and its details; UNAUTHENTICATED also sets the HTTP
 * status 401, RATE_LIMITED 429 with `Retry-After` (both refuse the whole request). A mutation's
 * error names the mutation's input field where the shared core names a member tool's argument
 * (see `GRAPHQL_FIELDS`). GraphQL's own request errors (syntax, validation, variables) pass
 * unchanged.
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
      const { message, details } = inGraphqlTerms(domain, mutationOf(located));
      return new GraphQLError(message, {
        ...where,
        extensions: { ...details, code: domain.code, ...http },
      });
    }
    if (located && (located.originalError === undefined || located.originalError instanceof GraphQLError)) {
      return withoutInternals(located);
    }
    logger.error('unexpected error in a GraphQL operation', {
      error: located?.originalError ?? error,
      path: located?.path?.join('.'),
    });
    return new GraphQLError(UNEXPECTED_ERROR_MESSAGE, where);
  };
}

/** graphql-js's hints at names the schema has ("Did you mean …?", fields, arguments, enum values). */
const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * The longest message of GraphQL's own request errors, in UTF-16 units: graphql-js quotes a
 * variable's value whole in each of its coercion errors (up to 50 per request), so a 900 KB
 * variable with unknown fields came back as a 45 MB answer, to clients without a token too.
 */
export const MAX_REQUEST_ERROR_MESSAGE_CHARS = 1_000;

/** What replaces the middle of a longer message. */
const CUT_MARK = ' … ';

/**
 * GraphQL's own request errors as sent, without what they leak: a suggestion of the schema's names
 * (GraphQL Armor hides only `Did you mean "x"?`, not the enum values' or the variables' hints),
 * the message of Yoga's `extensions.originalError` for a body that is not JSON (the parser's
 * message quotes the body, so a 300 KB body came back whole), and the middle of a message longer
 * than {@link MAX_REQUEST_ERROR_MESSAGE_CHARS} (a quoted variable).
 */
function withoutInternals(located: GraphQLError): GraphQLError {
  // In place, as GraphQL Armor edits these messages. The extension stays, with a fixed message:
  // without it Yoga answered that body 200 instead of 400.
  if (located.message.includes('Did you mean')) located.message = located.message.replace(SUGGESTION, '');
  located.message = withinMessageLimit(located.message);
  const internal = located.extensions.originalError as { message?: unknown } | undefined;
  if (typeof internal === 'object' && internal !== null && typeof internal.message === 'string') {
    internal.message = 'The parser message is not shown (it quotes the input).';
  }
  return located;
}

/**
 * `message` cut to {@link MAX_REQUEST_ERROR_MESSAGE_CHARS}: its start (the variable's name) and its
 * end (the reason) kept, the middle (the quoted value) replaced, never splitting a surrogate pair.
 */
export function withinMessageLimit(message: string): string {
  if (message.length <= MAX_REQUEST_ERROR_MESSAGE_CHARS) return message;
  const half = Math.floor((MAX_REQUEST_ERROR_MESSAGE_CHARS - CUT_MARK.length) / 2);
  let tailStart = message.length - half;
  if (isLowSurrogate(message.charCodeAt(tailStart))) tailStart += 1;
  return `${cutUtf16(message, half)}${CUT_MARK}${message.slice(tailStart)}`;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Hides the schema's names that validation errors suggest, as {@link withoutInternals} does for
 * the errors masking sees: validation errors are answered without passing the mask.
 */
export function useHiddenSuggestions(): Plugin {
  return {
    onValidate:
      () =>
      ({ valid, result }) => {
        if (!valid) for (const error of result) withoutInternals(error);
      },
  };
}

/** A core argument name as one mutation's input calls it; `wording` rewrites the message too. */
interface FieldRename {
  readonly field: string;
  readonly wording?: readonly [core: string, graphql: string];
}

/**
 * The GraphQL input field of each argument name the core reports, for the mutations where the two
 * differ.
 *
 * @remarks The mailbox and task-board decisions are shared by the member tools and these
 * mutations. The mailbox's name the member tools' arguments (`message_id`, `to`), as does the
 * board's `assignee`; the board's other rules and the idempotency checks name GraphQL's fields
 * (`taskId`, `dependsOn`), which the member tools' edge renames the other way
 * (`core/src/tools/tool-argument-names.ts`). Renaming once here, at the edge every GraphQL error
 * passes, leaves the tools' answers as they are; `invokeTeamTool` (the tools over GraphQL) is not
 * listed, so it keeps the tools' names.
 */
const GRAPHQL_FIELDS: ReadonlyMap<string, ReadonlyMap<string, FieldRename>> = new Map([
  [
    'sendMessage',
    new Map([
      ['message_id', { field: 'clientRequestId', wording: ['message id', 'clientRequestId'] as const }],
      ['to', { field: 'memberIds' }],
    ]),
  ],
  ['createTask', new Map([['assignee', { field: 'assigneeId' }]])],
  ['assignTask', new Map([['assignee', { field: 'memberId' }]])],
]);

/**
 * The root field whose resolver raised `located`, by its name in the schema (an alias only
 * renames the response key, so `path[0]` is not enough); null for errors below the root.
 */
function mutationOf(located: GraphQLError | null): string | null {
  const node = located?.nodes?.[0];
  if (located?.path?.length !== 1 || node?.kind !== Kind.FIELD) return null;
  return node.name.value;
}

/** The error's message and details with its field named as `mutation`'s input names it. */
function inGraphqlTerms(
  domain: DomainError,
  mutation: string | null,
): { message: string; details: DomainError['details'] } {
  const field = domain.details.field;
  const rename = mutation === null || typeof field !== 'string' ? undefined : GRAPHQL_FIELDS.get(mutation)?.get(field);
  if (rename === undefined) return { message: domain.message, details: domain.details };
  const message = rename.wording ? domain.message.replace(rename.wording[0], rename.wording[1]) : domain.message;
  return { message, details: { ...domain.details, field: rename.field } };
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
