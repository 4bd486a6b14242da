/**
 * Key of an optional method of a subscription's event iterator that hands over the next event
 * when it is already available, without a promise.
 *
 * @remarks A burst (one commit is several events) then reaches a socket in one synchronous pass:
 * the connection takes every ready event, writes them and flushes the socket once, before it
 * moves on to the next socket. Through `next()` alone, each event costs every subscriber a few
 * promise hops and the deliveries interleave event by event, so nothing can be flushed until the
 * whole burst is done. Sources without the method (`inboxChanged`) work unchanged.
 */
export const PULL_READY: unique symbol = Symbol('agent-teams.live.pullReady');

/** An event iterator that can hand over ready events synchronously. */
export interface ReadyEvents<T> {
  /** The next event if it is ready now; `undefined` when the caller has to await `next()`. */
  [PULL_READY](): IteratorResult<T> | undefined;
}

/** Whether the iterator can hand over ready events synchronously. */
export function hasReadyEvents<T>(iterator: AsyncIterator<T>): iterator is AsyncIterator<T> & ReadyEvents<T> {
  return typeof (iterator as Partial<ReadyEvents<T>>)[PULL_READY] === 'function';
}

/**
 * Key of an optional method of a subscription's event iterator that delivers without promises:
 * the next event if one is ready, the end if the source ended, else `undefined` after arranging
 * for `wake` to be called once, synchronously, when either becomes true.
 *
 * @remarks For the sources that wake many subscribers at once (`jobProgress`, every token of a
 * streamed answer; `teamEvents`, every commit): a waiting subscriber costs its source a
 * callback, where `next()` costs a promise, a microtask and the resumption of an async function
 * per delivery (2 µs of the relay's 18 per delivery in the token-relay benchmark). `wake` must not throw; one wake is armed at a time.
 */
export const PULL_OR_WAKE: unique symbol = Symbol('agent-teams.live.pullOrWake');

/** An event iterator that can also call back when its next event is ready ({@link PULL_OR_WAKE}). */
export interface WakingEvents<T> extends ReadyEvents<T> {
  [PULL_OR_WAKE](wake: () => void): IteratorResult<T> | undefined;
}

/** Whether the iterator can call back when its next event is ready. */
export function hasWakingEvents<T>(iterator: AsyncIterator<T>): iterator is AsyncIterator<T> & WakingEvents<T> {
  return hasReadyEvents(iterator) && typeof (iterator as Partial<WakingEvents<T>>)[PULL_OR_WAKE] === 'function';
}
