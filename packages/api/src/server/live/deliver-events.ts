import type { GraphQLError } from 'graphql';
import type { OperationHost } from './connection-deps.js';
import { deliverWokenEvents } from './deliver-woken.js';
import { completeOperation, endOperation } from './end-operation.js';
import type { Operation } from './operation-slots.js';
import { hasReadyEvents, hasWakingEvents, PULL_READY } from './ready-events.js';
import type { SharedPayload } from './shared-results.js';

/** Where an event's serialized result comes from (a group of subscribers sharing it). */
export interface EventResults {
  result(event: unknown): SharedPayload;
}

/**
 * Pulls a subscription's source events and sends each one's (shared) result, in order, while the
 * socket is authorized; then `complete`, or the errors of a source that failed mid-stream.
 *
 * @remarks Every event that is ready is written in one synchronous pass and the socket is
 * flushed once, before the next wait for events: a commit of three events costs a socket one
 * write, and the sockets woken first are on the wire while the others are still being served
 * (the clients start reading in parallel). A result still resolving does not split that write
 * unless it takes longer than the current turn of the event loop. Authorization is checked
 * before the first write after every wait: no other code runs between two writes of one
 * synchronous pass, so that is the same as checking before each write, and a revoked token
 * still stops the very next delivery. A source that calls back when it has events
 * (`jobProgress`, `teamEvents`) is delivered without a promise per event
 * ({@link deliverWokenEvents}); this loop serves the others (`inboxChanged`).
 */
export async function deliverEvents(
  host: OperationHost,
  operation: Operation,
  iterator: AsyncIterator<unknown>,
  prefix: Buffer,
  results: EventResults,
): Promise<void> {
  if (hasWakingEvents(iterator)) return deliverWokenEvents(host, operation, iterator, prefix, results);
  const { writer } = host;
  const ready = hasReadyEvents(iterator) ? iterator : null;
  let checked = false;
  try {
    while (!operation.cancelled) {
      let step = ready?.[PULL_READY]();
      if (step === undefined) {
        writer.flush();
        step = await iterator.next();
        checked = false;
      }
      if (step.done || operation.cancelled) break;
      let payload = results.result(step.value);
      if (payload instanceof Promise) {
        // The group's result is still resolving (an async resolver, e.g. a loader). It usually
        // settles within this turn: keep what is pending for the same write, but not past the turn.
        writer.flushSoon();
        payload = await payload;
        checked = false;
      }
      if (operation.cancelled) break;
      if (!checked) {
        if (!host.authorized()) break;
        checked = true;
      }
      writer.sendNext(prefix, payload);
    }
  } catch (error) {
    // A source that fails mid-stream (RESUME_EXPIRED during a replay): its errors, then complete.
    writer.flush();
    return endOperation(host, operation, { errors: [error as GraphQLError] });
  } finally {
    writer.flush();
  }
  completeOperation(host, operation);
}
