import SchemaBuilder from '@pothos/core';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import type { ApiContext } from './context.js';

/** The Pothos type configuration shared by every schema file. */
export interface SchemaTypes {
  Context: ApiContext;
  Scalars: {
    ID: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}

/**
 * Field extension: the field's `resolve` ignores its arguments (they only choose the source
 * stream), so the live server may share one serialized result per event across subscribers.
 */
export const SHARES_ACROSS_ARGUMENTS = 'sharesResultsAcrossArguments';

/** {@link SchemaTypes} with Pothos's defaults filled in. */
export type Types = PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>;

/** The builder every `addXxx(builder, refs)` schema file adds its types to. */
export type Builder = PothosSchemaTypes.SchemaBuilder<Types>;

/**
 * Creates a fresh builder with the two custom scalars of the contract.
 *
 * @remarks A new builder per `buildSchema()` call (no module-level builder), so tests and the
 * print script build independent schemas. No Pothos plugins: ids are raw domain ids, connections
 * come ready-made from the core, and loaders are plain DataLoaders in the request context.
 */
export function createBuilder(): Builder {
  const builder = new SchemaBuilder<SchemaTypes>({ defaultFieldNullability: false });
  builder.scalarType('DateTime', {
    description: 'ISO-8601 UTC string, e.g. "2026-11-30T04:00:00.000Z"',
    serialize: (value) => value,
    parseValue: (value) => parseDateTime(value),
    parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : null),
  });
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => literalToJson(ast, variables ?? undefined),
  });
  return builder;
}

function parseDateTime(value: unknown): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError('DateTime must be an ISO-8601 string.');
  }
  return new Date(value).toISOString();
}

/** Turns an inline JSON literal (`{a: [1, "x"]}`) into its value, resolving variables inside. */
function literalToJson(ast: ValueNode, variables: Record<string, unknown> | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((item) => literalToJson(item, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((field) => [field.name.value, literalToJson(field.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      return ast.value;
  }
}
