import { PULL_OR_WAKE, PULL_READY, type WakingEvents } from './live/ready-events.js';

/** Views one `jobProgress` subscription may hold undelivered; one more ends it (progress is not retained). */
export const PROGRESS_BACKLOG = 1024;

const DONE: IteratorResult<never> = { done: true, value: undefined };

/**
 * The events of one `jobProgress` subscription: a queue the progress hub fills and the live
 * server drains, handing ready views over without a promise ({@link ReadyEvents}).
 *
 * @remarks Replaces a `Repeater`, whose every push allocates promises and whose pending pushes
 * are delivered one `next()` (and so one socket write) at a time. A waiting `next()` is woken
 * once per turn of the event loop (one `setImmediate` for every stream woken in that turn, as
 * the team feeds do), with the first view; the live server then takes the others queued in the
 * same turn through {@link PULL_READY} and writes them all at once. While the server keeps up
 * that is one delta per write, a fraction of a millisecond later; once it falls behind (the
 * provider's chunks pile up and are parsed in one go), each socket gets the whole pile in one
 * write, so the cost per delta falls and the server catches up instead of queueing further
 * behind (token-relay benchmark). A subscriber more than {@link PROGRESS_BACKLOG} views behind is
 * ended (the client sees `complete`): progress is not stored, and a consumer that slow cannot
 * use it live anyway. The live server waits through {@link PULL_OR_WAKE} rather than `next()`:
 * the wake then calls it back synchronously, without a promise per delivery. {@link ProgressStream.end}
 * ends it the normal way: the views already queued are delivered first (the job's last one among
 * them), then the end.
 */
export class ProgressStream<V> implements AsyncIterableIterator<V>, WakingEvents<V> {
  #queue: (V | undefined)[] = [];
  #head = 0;
  /** Resolves the pending `next()`, if any. */
  #wake: ((result: IteratorResult<V>) => void) | null = null;
  /** The callback armed by {@link PULL_OR_WAKE}, if any (instead of a waiting `next()`). */
  #wakeCallback: (() => void) | null = null;
  /** No more views are accepted; pulls answer the end once the queue is empty. */
  #closed = false;
  #released = false;
  /** True while this stream waits in {@link ProgressStream.#toWake}. */
  #scheduled = false;
  readonly #release: () => void;
  /** Streams with a waiting `next()` and views queued for it, woken together. */
  static readonly #toWake = new Set<ProgressStream<unknown>>();
  static #wakeScheduled = false;
  // One executor per stream rather than a closure per wait.
  readonly #waitExecutor = (resolve: (result: IteratorResult<V>) => void): void => {
    this.#wake = resolve;
  };

  /** `release` runs once, when the stream ends (stop listening there). */
  constructor(release: () => void) {
    this.#release = release;
  }

  /** Queues a view; a waiting `next()` gets it at the end of this turn of the event loop. */
  push(value: V): void {
    if (this.#closed) return;
    if (this.#queue.length - this.#head >= PROGRESS_BACKLOG) {
      this.#finish();
      return;
    }
    this.#queue.push(value);
    if ((this.#wake === null && this.#wakeCallback === null) || this.#scheduled) return;
    this.#scheduled = true;
    ProgressStream.#toWake.add(this as ProgressStream<unknown>);
    if (!ProgressStream.#wakeScheduled) {
      ProgressStream.#wakeScheduled = true;
      setImmediate(ProgressStream.#wakeAll);
    }
  }

  static #wakeAll(): void {
    ProgressStream.#wakeScheduled = false;
    const streams = [...ProgressStream.#toWake];
    ProgressStream.#toWake.clear();
    for (const stream of streams) stream.#wakeWaiter();
  }

  /** Hands the first queued view to the waiting `next()` (the caller takes the rest with PULL_READY). */
  #wakeWaiter(): void {
    this.#scheduled = false;
    const callback = this.#wakeCallback;
    if (callback !== null) {
      if (this.#head === this.#queue.length) return;
      this.#wakeCallback = null;
      callback();
      return;
    }
    const wake = this.#wake;
    const ready = wake === null ? undefined : this[PULL_READY]();
    if (wake === null || ready === undefined) return;
    this.#wake = null;
    wake(ready);
  }

  [PULL_READY](): IteratorResult<V> | undefined {
    if (this.#head === this.#queue.length) return undefined;
    const value = this.#queue[this.#head] as V;
    this.#queue[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    }
    return { done: false, value };
  }

  [PULL_OR_WAKE](wake: () => void): IteratorResult<V> | undefined {
    const ready = this[PULL_READY]();
    if (ready !== undefined) return ready;
    if (this.#closed) return DONE;
    this.#wakeCallback = wake;
    return undefined;
  }

  next(): Promise<IteratorResult<V>> {
    const ready = this[PULL_READY]();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.#closed) return Promise.resolve(DONE);
    return new Promise(this.#waitExecutor);
  }

  return(): Promise<IteratorResult<V>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Ends the stream after the views already queued: later pushes are ignored, `release` runs now,
   * and the pull after the last queued view answers the end (the client then gets `complete`).
   */
  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Nothing queued: no wake is scheduled, so the waiting subscriber is ended here. Otherwise a
    // waiter was woken by the push that queued (or is about to pull), and its next pull ends it.
    if (this.#head === this.#queue.length) this.#finish();
    else this.#releaseOnce();
  }

  /** Ends at once, dropping what is queued (`return()`, a subscriber too far behind). */
  #finish(): void {
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    const wake = this.#wake;
    this.#wake = null;
    const callback = this.#wakeCallback;
    this.#wakeCallback = null;
    wake?.(DONE);
    this.#releaseOnce();
    // Last: the subscriber finds the stream fully closed (its pull answers the end).
    callback?.();
  }

  #releaseOnce(): void {
    if (this.#released) return;
    this.#released = true;
    this.#release();
  }
}
