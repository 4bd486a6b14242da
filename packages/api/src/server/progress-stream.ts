import { PULL_READY, type ReadyEvents } from './live/ready-events.js';

/** Views one `jobProgress` subscription may hold undelivered; one more ends it (progress is not retained). */
export const PROGRESS_BACKLOG = 1024;

const DONE: IteratorResult<never> = { done: true, value: undefined };

/**
 * The events of one `jobProgress` subscription: a queue the progress hub fills and the live
 * server drains, handing ready views over without a promise ({@link ReadyEvents}).
 *
 * @remarks Replaces a `Repeater`, whose every push allocates promises and whose pending pushes
 * are delivered one `next()` (and so one socket write) at a time. Through {@link PULL_READY} a
 * subscriber that fell behind gets its whole backlog in one synchronous pass and one write, so a
 * busy server catches up instead of queueing further behind (token-relay benchmark). A
 * subscriber more than {@link PROGRESS_BACKLOG} views behind is ended (the client sees
 * `complete`): progress is not stored, and a consumer that slow cannot use it live anyway.
 */
export class ProgressStream<V> implements AsyncIterableIterator<V>, ReadyEvents<V> {
  #queue: (V | undefined)[] = [];
  #head = 0;
  /** Resolves the pending `next()`, if any. */
  #wake: ((result: IteratorResult<V>) => void) | null = null;
  #closed = false;
  readonly #release: () => void;
  // One executor per stream rather than a closure per wait.
  readonly #waitExecutor = (resolve: (result: IteratorResult<V>) => void): void => {
    this.#wake = resolve;
  };

  /** `release` runs once, when the stream ends (stop listening there). */
  constructor(release: () => void) {
    this.#release = release;
  }

  /** Adds a view: straight to a waiting `next()`, else to the queue. */
  push(value: V): void {
    if (this.#closed) return;
    const wake = this.#wake;
    if (wake !== null) {
      this.#wake = null;
      wake({ done: false, value });
    } else if (this.#queue.length - this.#head >= PROGRESS_BACKLOG) {
      this.#finish();
    } else {
      this.#queue.push(value);
    }
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

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    const wake = this.#wake;
    this.#wake = null;
    wake?.(DONE);
    this.#release();
  }
}
