import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the current async context carries: the log fields of the request or job step
 * (`log-context.ts`) and the scheduler's own write in progress, if any (`scheduler/own-commits.ts`).
 *
 * @remarks One `AsyncLocalStorage` for both, because each one in use adds its own propagation to
 * the creation of every promise and async resource (Node 20: one `_propagate` call per storage per
 * resource; a turn's profile had 0.2 ms in these hooks). Each writer copies the other's part, so
 * the two behave as two separate storages would.
 */
export interface AsyncFrame {
  readonly logFields: Readonly<Record<string, string>>;
  /** An opaque mark of `own-commits.ts`. */
  readonly ownWrite: unknown;
}

const storage = new AsyncLocalStorage<AsyncFrame>();

/** Outside any frame. */
const EMPTY: AsyncFrame = { logFields: {}, ownWrite: undefined };

/** The current frame (an empty one outside any). */
export function currentFrame(): AsyncFrame {
  return storage.getStore() ?? EMPTY;
}

/** Runs `work` in `frame`, also its callbacks and awaits. */
export function runInFrame<T>(frame: AsyncFrame, work: () => T): T {
  return storage.run(frame, work);
}
