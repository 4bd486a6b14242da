/**
 * The part of `@0no-co/graphql.web` that `@urql/core` calls, for the widget's own documents; the
 * build aliases the package to this file (vite.config.ts).
 *
 * @remarks urql parses a string document only to key it, to read its operation name and to print
 * it back into the request body; it never looks inside the selection set unless the (unused)
 * `cacheExchange` adds `__typename`. Every widget document is a fixed string in `api.ts` that
 * starts with `query|mutation|subscription Name`, and the server parses and validates it anyway,
 * so a parsed document here is that header plus the original text. The real parser and printer
 * cost 2.8 KiB gzip of the bundle (docs/decisions/0050); `graphql-web-shim.test.ts` checks every
 * document in `api.ts` against the real parser.
 */

/** The only node kind urql compares (`getOperationName`, `getOperationType`). */
export const Kind = { OPERATION_DEFINITION: 'OperationDefinition' } as const;

/** An error of a GraphQL result, as urql rehydrates it into a `CombinedError`. */
export class GraphQLError extends Error {
  readonly path: readonly (string | number)[] | undefined;
  readonly extensions: Record<string, unknown>;
  constructor(
    message: string,
    _nodes?: unknown,
    _source?: unknown,
    _positions?: unknown,
    path?: readonly (string | number)[],
    originalError?: { extensions?: Record<string, unknown> },
    extensions?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GraphQLError';
    this.path = path;
    this.extensions = extensions ?? originalError?.extensions ?? {};
  }
}

/** What urql reads of a parsed document. */
export interface HeaderDocument {
  readonly kind: 'Document';
  readonly definitions: readonly [
    { kind: typeof Kind.OPERATION_DEFINITION; operation: string; name: { kind: 'Name'; value: string } },
  ];
  readonly loc: { start: number; end: number; source: { body: string; name: string } };
}

const HEADER = /^\s*(query|mutation|subscription)\s+([_A-Za-z]\w*)/;

/** Reads the operation header of `source` and keeps the text, so printing returns it unchanged. */
export function parse(source: string | { body: string }): HeaderDocument {
  const body = typeof source === 'string' ? source : source.body;
  const header = HEADER.exec(body);
  if (!header)
    throw new GraphQLError('[agent-teams/widget] a document must start with "query|mutation|subscription Name"');
  return {
    kind: 'Document',
    definitions: [
      { kind: Kind.OPERATION_DEFINITION, operation: header[1] ?? '', name: { kind: 'Name', value: header[2] ?? '' } },
    ],
    loc: { start: 0, end: body.length, source: { body, name: 'gql' } },
  };
}

/** The text a document was parsed from. */
export function print(node: { loc?: { source: { body: string } } }): string {
  if (!node.loc) throw new GraphQLError('[agent-teams/widget] only documents parsed from text can be printed');
  return node.loc.source.body;
}
