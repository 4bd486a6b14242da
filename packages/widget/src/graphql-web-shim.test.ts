import { createRequest, stringifyDocument } from '@urql/core';
import { Kind as GraphQLKind, type OperationDefinitionNode, parse as parseGraphQL } from 'graphql';
import { describe, expect, it } from 'vitest';
import * as api from './api.js';
import { GraphQLError, Kind, parse, print } from './graphql-web-shim.js';

/** Every operation document the widget sends. */
const documents = Object.entries(api as Record<string, unknown>).filter(
  (entry): entry is [string, string] =>
    typeof entry[1] === 'string' && /^\s*(query|mutation|subscription)\b/.test(entry[1]),
);

describe('the graphql.web stand-in', () => {
  it('reads the same operation type and name as graphql-js from every widget document', () => {
    expect(documents.length).toBeGreaterThanOrEqual(12);
    for (const [name, text] of documents) {
      const real = parseGraphQL(text).definitions.find(
        (node): node is OperationDefinitionNode => node.kind === GraphQLKind.OPERATION_DEFINITION,
      );
      const [shim] = parse(text).definitions;
      expect({ name, operation: shim.operation, value: shim.name.value }).toEqual({
        name,
        operation: real?.operation,
        value: real?.name?.value,
      });
      expect(shim.kind).toBe(Kind.OPERATION_DEFINITION);
      expect(print(parse(text))).toBe(text);
    }
  });

  it('lets urql key a document and print it back unchanged (vitest aliases graphql.web like the build)', () => {
    const text = api.TEAM_QUERY;
    const request = createRequest(text, { id: 't1' });
    expect(stringifyDocument(request.query)).toBe(text);
    expect(createRequest(text, { id: 't1' }).key).toBe(request.key);
    expect(createRequest(text, { id: 't2' }).key).not.toBe(request.key);
  });

  it('refuses a document without an operation header, naming the package', () => {
    expect(() => parse('{ viewer { id } }')).toThrow(/agent-teams\/widget/);
    expect(() => print({})).toThrow(/agent-teams\/widget/);
  });

  it('keeps the extensions of a rehydrated error, from the error or its original', () => {
    const own = new GraphQLError('m', undefined, undefined, undefined, ['team'], undefined, { code: 'NOT_FOUND' });
    expect([own.extensions.code, own.path, own.message]).toEqual(['NOT_FOUND', ['team'], 'm']);
    const wrapped = new GraphQLError('m', undefined, undefined, undefined, undefined, { extensions: { code: 'X' } });
    expect(wrapped.extensions.code).toBe('X');
    expect(new GraphQLError('m').extensions).toEqual({});
  });
});
