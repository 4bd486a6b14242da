import { Limits, MAX_SCOPE_WARNINGS } from '@agent-teams/core';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

/**
 * Lists whose length an argument chooses: at most `max`; an absent argument counts as the schema's
 * default for it (what the resolver receives), or `max` when the schema has none.
 */
export const SIZED_BY_ARGUMENT: Readonly<Record<string, { readonly arg: string; readonly max: number }>> = {
  // An owner never holds more teams than this, whatever page size is asked.
  'Viewer.teams': { arg: 'first', max: Limits.teamsPerOwner },
  'Viewer.inbox': { arg: 'first', max: Limits.connectionPage.max },
  'Query.agents': { arg: 'first', max: Limits.connectionPage.max },
  'Team.jobs': { arg: 'first', max: Limits.connectionPage.max },
  'Team.activity': { arg: 'first', max: Limits.connectionPage.max },
  'Team.history': { arg: 'limit', max: Limits.pageSize.max },
  'Team.results': { arg: 'limit', max: Limits.pageSize.max },
  'Member.conversation': { arg: 'first', max: Limits.connectionPage.max },
  'Team.messages': { arg: 'first', max: Limits.connectionPage.max },
  'Team.tasks': { arg: 'first', max: Limits.connectionPage.max },
};

/** List fields whose length a domain limit fixes. */
export const BOUNDED_LISTS: Readonly<Record<string, number>> = {
  'Team.members': Limits.maxMembers,
  'TeamContext.members': Limits.maxMembers,
  'TeamContext.messages': Limits.contextMessages,
  'SendRequestPayload.jobs': Limits.maxMembers,
  'Query.mentionTargets': Limits.mentionResults,
  // A member's undelivered messages never exceed its mailbox, a message's recipients a roster.
  'Member.mailbox': Limits.mailboxUndelivered,
  'TeamMessage.to': Limits.maxMembers,
  'Task.dependsOn': Limits.dependenciesPerTask,
  'Task.writeScope': Limits.writeScopesPerTask,
  'TaskPayload.warnings': MAX_SCOPE_WARNINGS,
};

/** The items of a page: their count was already counted at the field that made the page. */
export const PAGE_ITEMS: ReadonlySet<string> = new Set([
  'TeamConnection.edges',
  'JobConnection.edges',
  'AgentConnection.edges',
  'ConversationMessageConnection.edges',
  'TeamMessageConnection.edges',
  'HistoryPage.records',
  'ResultSearchPage.results',
  'TaskConnection.edges',
]);

/** A list no table above names (a field added without classifying it) counts as a full page. */
const UNKNOWN_LIST = Limits.connectionPage.max;

/**
 * The most fields the answer to an operation can hold: every selected field counts 1, times the
 * largest length of every list around it.
 *
 * @remarks A list's length is its size argument (`first`, `limit`) as given, literally or
 * through a variable, capped at the field's maximum; an absent or unusable argument counts as
 * that maximum, so a variable cannot hide a size the way it hid from graphql-armor's cost (which
 * reads literal `first` only). Lists without a size argument count their domain maximum (8
 * members, …). Introspection counts nothing: its answer is bounded by the schema. `@skip` and
 * `@include` are ignored (the count stays an upper bound). Fragments are counted once each.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  let known = fixedCosts.get(schema);
  if (known === undefined) {
    known = new WeakMap();
    fixedCosts.set(schema, known);
  }
  const byName = known.get(document);
  const cached = byName?.get(operationName ?? null);
  if (cached !== undefined) return cached;
  const counted = countOperation(schema, document, operationName, variables);
  // Only a count no variable entered is the same for every request of this document.
  if (!counted.usedVariables) {
    if (byName === undefined) known.set(document, new Map([[operationName ?? null, counted.cost]]));
    else if (byName.size < MAX_NAMES_PER_DOCUMENT) byName.set(operationName ?? null, counted.cost);
  }
  return counted.cost;
}

/**
 * The counts that read no variable, by schema, document and operation name. Yoga's parser cache
 * hands every request with the same text the same `DocumentNode`, so a repeated operation is
 * counted once; the weak keys go with the documents that cache drops.
 */
const fixedCosts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string | null, number>>>();

/** Operation names remembered per document: a client cannot grow one entry without bound. */
const MAX_NAMES_PER_DOCUMENT = 16;

function countOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): { readonly cost: number; readonly usedVariables: boolean } {
  const operation = getOperationAST(document, operationName ?? null);
  if (!operation) return { cost: 0, usedVariables: false };
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: 0, usedVariables: false };
  let usedVariables = false;
  let merged: Readonly<Record<string, unknown>> | null = null;
  // Merged with the operation's defaults on first use: most operations size nothing by a variable.
  const effectiveVariables = (): Readonly<Record<string, unknown>> => {
    usedVariables = true;
    merged ??= withOperationDefaults(operation.variableDefinitions ?? [], variables);
    return merged;
  };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const fragmentCosts = new Map<string, number>();
  const visiting = new Set<string>();

  const selectionCost = (set: SelectionSetNode, parent: GraphQLCompositeType): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        total += fieldCost(selection, parent);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        total += isCompositeType(type) ? selectionCost(selection.selectionSet, type) : 0;
      } else {
        total += spreadCost(selection.name.value);
      }
    }
    return total;
  };

  const spreadCost = (name: string): number => {
    const known = fragmentCosts.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    // Cycles and unknown fragments fail validation before this runs; count them as nothing.
    if (!fragment || visiting.has(name)) return 0;
    visiting.add(name);
    const type = schema.getType(fragment.typeCondition.name.value);
    const cost = isCompositeType(type) ? selectionCost(fragment.selectionSet, type) : 0;
    visiting.delete(name);
    fragmentCosts.set(name, cost);
    return cost;
  };

  const fieldCost = (node: FieldNode, parent: GraphQLCompositeType): number => {
    if (node.name.value.startsWith('__')) return node.name.value === '__typename' ? 1 : 0;
    const field = fieldOf(parent, node.name.value);
    if (!field) return 1;
    const type = getNamedType(field.type);
    const inner = node.selectionSet && isCompositeType(type) ? selectionCost(node.selectionSet, type) : 0;
    return listLength(`${parent.name}.${field.name}`, field, node) * (1 + inner);
  };

  const listLength = (key: string, field: GraphQLField<unknown, unknown>, node: FieldNode): number => {
    const sized = SIZED_BY_ARGUMENT[key];
    if (sized) return sizeArgument(field, node, sized.arg, sized.max, effectiveVariables);
    if (!isListType(getNullableType(field.type)) || PAGE_ITEMS.has(key)) return 1;
    return BOUNDED_LISTS[key] ?? UNKNOWN_LIST;
  };

  const cost = selectionCost(operation.selectionSet, root);
  return { cost, usedVariables };
}

function fieldOf(parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/**
 * The variables as the executor sees them: a variable the request leaves out takes its default from
 * the operation (`query($n: Int = 5)`), so the count matches what the resolver receives.
 */
function withOperationDefaults(
  definitions: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Readonly<Record<string, unknown>> {
  const merged: Record<string, unknown> = { ...(variables ?? {}) };
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (merged[name] === undefined && definition.defaultValue?.kind === Kind.INT) {
      merged[name] = Number(definition.defaultValue.value);
    }
  }
  return merged;
}

/**
 * The size an argument asks for, capped at `max`. An absent argument, or a variable the request
 * leaves unset, counts as the schema's default (GraphQL passes the default then); anything else
 * that is not a whole number (null, a string) counts as `max`.
 */
function sizeArgument(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  name: string,
  max: number,
  variablesOf: () => Readonly<Record<string, unknown>>,
): number {
  const argument = node.arguments?.find((arg) => arg.name.value === name);
  // Read only when the argument is a variable: a literal or absent size leaves the count cacheable.
  const variables = argument?.value.kind === Kind.VARIABLE ? variablesOf() : null;
  const unset =
    !argument || (argument.value.kind === Kind.VARIABLE && variables?.[argument.value.name.value] === undefined);
  const asked = unset
    ? field.args.find((arg) => arg.name === name)?.defaultValue
    : askedValue(argument.value, variables);
  return typeof asked === 'number' && Number.isSafeInteger(asked) && asked >= 0 ? Math.min(asked, max) : max;
}

function askedValue(value: ValueNode, variables: Readonly<Record<string, unknown>> | null): unknown {
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) return variables?.[value.name.value];
  return undefined;
}
