import {
  type ASTNode,
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import { SHARES_ACROSS_ARGUMENTS } from '../../schema/builder.js';

/**
 * The key of the subscribers that may share a serialized result per event: the owner, the
 * document, the operation name and the variables that can change what one event resolves to.
 *
 * @remarks graphql-js resolves a subscription event by executing the whole selection with the
 * event as root value; variables used anywhere in it may change the result, so they are part of
 * the key. The one exception is the arguments of a root field whose schema marks it
 * {@link SHARES_ACROSS_ARGUMENTS} (`teamEvents`: `teamId` and `afterSeq` pick the stream, and
 * `resolve` returns the event itself): subscribers resuming from different seqs then still share
 * each event's result, because results are cached per event object, not per stream.
 */
export function shareKey(
  schema: GraphQLSchema,
  document: DocumentNode,
  query: string,
  operationName: string | null,
  variables: Readonly<Record<string, unknown>> | null,
  scope: string,
): string {
  const operation = getOperationAST(document, operationName);
  const names = operation ? variablesThatMatter(schema, document, operation) : null;
  const values =
    names === null ? variables : Object.fromEntries([...names].sort().map((name) => [name, variables?.[name]]));
  return `${scope}\u0000${operationName ?? ''}\u0000${JSON.stringify(values ?? null)}\u0000${query}`;
}

function variablesThatMatter(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): Set<string> {
  const names = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      Variable: (variable) => {
        names.add(variable.name.value);
      },
    });
  const root = schema.getSubscriptionType()?.getFields() ?? {};
  for (const definition of document.definitions) {
    if (definition !== operation) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) collect(definition);
      continue;
    }
    for (const directive of operation.directives ?? []) collect(directive);
    for (const selection of operation.selectionSet.selections) {
      const shares =
        selection.kind === Kind.FIELD && root[selection.name.value]?.extensions?.[SHARES_ACROSS_ARGUMENTS] === true;
      if (!shares || selection.kind !== Kind.FIELD) {
        collect(selection);
        continue;
      }
      for (const directive of selection.directives ?? []) collect(directive);
      if (selection.selectionSet) collect(selection.selectionSet);
    }
  }
  return names;
}
