import type { GraphQLError } from 'graphql';
import type { OperationHost } from './connection-deps.js';
import type { EventResults } from './deliver-events.js';
import { completeOperation, endOperation } from './end-operation.js';
import type { Operation } from './operation-slots.js';
import { PULL_OR_WAKE, PULL_READY, type WakingEvents } from './ready-events.js';

/**
 * Events one pass of a subscription delivers before it yields the event loop (`setImmediate`) and
 * goes on in a later turn.
 *
 * @remarks A live delivery is one event per commit, far below this. A catch-up from the feed's
 * ring (up to 256 events, each executed for the subscription's document) ran to its end in one
 * task: one owner's 200 subscriptions catching up held every other request for about a second.
 * Yielding lets the other owners' I/O in between: with 100 catching up, another owner's request
 * was answered after about 15,500 of the 25,600 deliveries instead of after all of them. Fewer per
 * pass answered it sooner (after about 3,800 at 8) but made the catch-ups as a whole 2–3 times
 * slower (more passes, smaller writes).
 */
export const EVENTS_PER_PASS = 32;

/**
 * {@link deliverEvents} for a source that calls back when its next event is ready
 * ({@link PULL_OR_WAKE}): the same frames, flushes, authorization checks and ending, without a
 * promise per delivery. Resolves when the subscription ended.
 *
 * @remarks Each wake runs one synchronous pass: every ready event is queued for the socket, the
 * next wake armed, and the socket flushed at the end of the current task, together with every
 * other socket its source woke in it (`FrameWriter.flushAfterTask`): a token reaches 125
 * subscribers as 125 writes back to back, which cost this machine 2.5 µs less per delivery than
 * writes between each socket's JavaScript (token-relay benchmark, docs/benchmarks.md).
 * Authorization is checked before the first write of every pass, as there. A result still
 * resolving (the first subscriber of a group whose selection has an asynchronous resolver) pauses
 * the pass until it settles; the events behind it wait, in order. The wake never throws (the
 * source calls it from its own loop over many subscribers): what would throw fails the delivery.
 */
export function deliverWokenEvents(
  host: OperationHost,
  operation: Operation,
  source: WakingEvents<unknown>,
  prefix: Buffer,
  results: EventResults,
): Promise<void> {
  const { writer } = host;
  return new Promise<void>((resolve, reject) => {
    /**
     * Runs one step of the delivery from a callback (the source's wake, a result that settled).
     * An error no step expects fails the delivery, as a throw fails `deliverEvents`: its group is
     * released and the connection closes the socket with 4500 (`runOperation`'s caller).
     */
    const step = (work: () => void): void => {
      try {
        work();
      } catch (error) {
        reject(error);
      }
    };
    const wake = (): void => step(pass);
    /** Ends the delivery: `complete` (unless cancelled), or a failed source's errors. */
    const end = (error?: unknown): void => {
      writer.flush();
      if (error === undefined) completeOperation(host, operation);
      // A source that fails mid-stream (RESUME_EXPIRED during a replay): its errors, then complete.
      else endOperation(host, operation, { errors: [error as GraphQLError] });
      resolve();
    };
    /** Writes `payload` after a (re)check of the token; false once the socket lost its authorization. */
    const write = (payload: Buffer, checked: boolean): boolean => {
      if (!checked && !host.authorized()) return false;
      writer.sendNext(prefix, payload);
      return true;
    };
    const pass = (): void => {
      let checked = false;
      let delivered = 0;
      try {
        while (!operation.cancelled) {
          if (delivered === EVENTS_PER_PASS) {
            writer.flushAfterTask();
            setImmediate(wake);
            return;
          }
          let next = source[PULL_READY]();
          if (next === undefined) {
            writer.flushAfterTask();
            next = source[PULL_OR_WAKE](wake);
            if (next === undefined) return;
          }
          if (next.done) break;
          const payload = results.result(next.value);
          if (payload instanceof Promise) {
            writer.flushSoon();
            payload.then(
              (bytes) =>
                step(() => {
                  if (operation.cancelled || !write(bytes, false)) end();
                  else pass();
                }),
              (error: unknown) => step(() => end(error)),
            );
            return;
          }
          if (!write(payload, checked)) break;
          checked = true;
          delivered += 1;
        }
      } catch (error) {
        end(error);
        return;
      }
      end();
    };
    wake();
  });
}
