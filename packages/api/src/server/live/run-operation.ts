import type { OwnerId } from '@agent-teams/core';
import { createSourceEventStream, type ExecutionArgs, type ExecutionResult, execute, getOperationAST } from 'graphql';
import type { LiveConnectionDeps, OperationHost } from './connection-deps.js';
import { deliverEvents } from './deliver-events.js';
import { endOperation, refuseOperation, serializeResult } from './end-operation.js';
import type { Operation } from './operation-slots.js';
import { nextFramePrefix, type SubscribePayload } from './protocol.js';
import { shareKey } from './share-key.js';
import type { ResultGroup, SharedPayload } from './shared-results.js';

/**
 * Runs one `subscribe` message: validates and guards it as HTTP does (limits, rate limit,
 * storable input, cost with its variables), answers a query or mutation with one
 * result, or starts a subscription and delivers its events with results shared across the
 * subscribers of the same (owner, document, operation, variables that matter).
 *
 * @remarks graphql-js semantics are kept for any document: `createSourceEventStream` per
 * subscriber (so the subscribe resolver still checks ownership), then `execute` with the event
 * as root value, once per group and event instead of once per subscriber (see
 * {@link SharedResults}). A subscription that fails to start answers `next` with its errors, as
 * graphql-ws does.
 */
export async function runOperation(
  host: OperationHost,
  operation: Operation,
  payload: SubscribePayload,
): Promise<void> {
  const { deps } = host;
  const { owner } = operation;
  const prepared = deps.prepare(payload.query);
  if ('errors' in prepared) return refuseOperation(host, operation, prepared.errors);
  const refused = deps.guard({
    schema: prepared.schema,
    document: prepared.document,
    operationName: payload.operationName,
    variables: payload.variables,
    owner,
  });
  if (refused !== null) return refuseOperation(host, operation, [refused]);
  const args: ExecutionArgs = {
    schema: prepared.schema,
    document: prepared.document,
    operationName: payload.operationName ?? null,
    variableValues: payload.variables ?? null,
    contextValue: deps.createContext(owner),
  };
  const definition = getOperationAST(prepared.document, payload.operationName ?? null);
  if (definition?.operation !== 'subscription') return endOperation(host, operation, await execute(args));
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return endOperation(host, operation, source as ExecutionResult);
  const iterator = source[Symbol.asyncIterator]();
  operation.iterator = iterator;
  if (operation.cancelled) {
    void iterator.return?.();
    return;
  }
  const group = deps.shared.join(
    shareKey(
      prepared.schema,
      prepared.document,
      payload.query,
      args.operationName ?? null,
      payload.variables ?? null,
      owner,
    ),
    () => executeEvent(deps, { ...args, contextValue: undefined }, owner),
  );
  // Returned, not awaited: this frame (the document, the variables, the first context) is not
  // kept alive for as long as the subscription runs.
  return followEvents(host, operation, iterator, group);
}

/** Delivers a started subscription's events until it ends, then leaves its group. */
async function followEvents(
  host: OperationHost,
  operation: Operation,
  iterator: AsyncIterator<unknown>,
  group: ResultGroup,
): Promise<void> {
  try {
    await deliverEvents(host, operation, iterator, nextFramePrefix(operation.id), group);
  } finally {
    group.release();
  }
}

/**
 * How a group resolves one source event, as graphql-js's `subscribe` does: `execute` with the
 * event as root value and a fresh context (current state), serialized through the one mask.
 *
 * @remarks Synchronous when every resolver of the selection is (graphql-js then returns a value,
 * not a promise), so the other members of the group write the bytes without awaiting.
 */
function executeEvent(
  deps: LiveConnectionDeps,
  args: ExecutionArgs,
  owner: OwnerId,
): (event: unknown) => SharedPayload {
  const toBytes = (result: ExecutionResult) => Buffer.from(serializeResult(result, deps.maskError));
  return (event) => {
    // Not a literal that begins with a spread (`rootValue` is a new key; see `UNADMITTED` in the
    // core): once per event and group of subscriptions.
    const result = execute(Object.assign({}, args, { contextValue: deps.createContext(owner), rootValue: event }));
    return result instanceof Promise ? result.then(toBytes) : toBytes(result);
  };
}
