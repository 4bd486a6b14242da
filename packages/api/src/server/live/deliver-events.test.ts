import { describe, expect, it } from 'vitest';
import type { OperationHost } from './connection-deps.js';
import { deliverEvents } from './deliver-events.js';
import type { FrameWriter } from './frame-writer.js';
import type { Operation } from './operation-slots.js';
import { PULL_OR_WAKE, PULL_READY } from './ready-events.js';
import type { SharedPayload } from './shared-results.js';

/** A source whose queued events are ready now; `next()` waits for the next push. */
class QueueSource implements AsyncIterator<number> {
  readonly #queue: number[] = [];
  #waiting: ((step: IteratorResult<number>) => void) | null = null;

  push(...events: number[]): void {
    this.#queue.push(...events);
    const waiting = this.#waiting;
    const first = this.#queue.shift();
    if (waiting && first !== undefined) {
      this.#waiting = null;
      waiting({ done: false, value: first });
    } else if (first !== undefined) {
      this.#queue.unshift(first);
    }
  }

  next(): Promise<IteratorResult<number>> {
    const first = this.#queue.shift();
    if (first !== undefined) return Promise.resolve({ done: false, value: first });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  [PULL_READY](): IteratorResult<number> | undefined {
    const first = this.#queue.shift();
    return first === undefined ? undefined : { done: false, value: first };
  }

  return(): Promise<IteratorResult<number>> {
    this.#waiting?.({ done: true, value: undefined });
    return Promise.resolve({ done: true, value: undefined });
  }
}

/**
 * The same queue calling back instead ({@link PULL_OR_WAKE}), a turn after the push that wakes it
 * (as `ProgressStream` does); `next()` is never used.
 */
class WakingQueueSource implements AsyncIterator<number> {
  readonly #queue: number[] = [];
  #wake: (() => void) | null = null;
  #ended = false;

  push(...events: number[]): void {
    this.#queue.push(...events);
    const wake = this.#wake;
    this.#wake = null;
    if (wake) setImmediate(wake);
  }

  next(): Promise<IteratorResult<number>> {
    throw new Error('a waking source is not awaited');
  }

  [PULL_READY](): IteratorResult<number> | undefined {
    const first = this.#queue.shift();
    return first === undefined ? undefined : { done: false, value: first };
  }

  [PULL_OR_WAKE](wake: () => void): IteratorResult<number> | undefined {
    const ready = this[PULL_READY]();
    if (ready !== undefined) return ready;
    if (this.#ended) return { done: true, value: undefined };
    this.#wake = wake;
    return undefined;
  }

  return(): Promise<IteratorResult<number>> {
    this.#ended = true;
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
    return Promise.resolve({ done: true, value: undefined });
  }
}

/** A connection whose writer logs frames and writes ("flush" only when frames were pending). */
function fakeHost(isAuthorized: () => boolean) {
  const log: string[] = [];
  let pending = 0;
  let checks = 0;
  const writer = {
    sendNext: (_prefix: Buffer, payload: Buffer) => {
      pending += 1;
      log.push(payload.toString());
    },
    send: (text: string) => log.push(text),
    flush: () => {
      if (pending > 0) log.push('flush');
      pending = 0;
    },
    flushSoon: () => {},
    flushAfterTask: () => queueMicrotask(() => writer.flush()),
  } as unknown as FrameWriter;
  const host: OperationHost = {
    deps: { maskError: (error: unknown) => error } as unknown as OperationHost['deps'],
    writer,
    authorized: () => {
      checks += 1;
      return isAuthorized();
    },
    finish: (operation) => {
      operation.cancelled = true;
    },
  };
  return { host, log, checks: () => checks };
}

const operation = (): Operation => ({
  id: '1',
  owner: 'alice' as Operation['owner'],
  cancelled: false,
  iterator: null,
});
const settle = () => new Promise((resolve) => setImmediate(resolve));
const bytes = { result: (event: unknown): SharedPayload => Buffer.from(`e${event}`) };

const sources = [
  { kind: 'awaited (next)', make: () => new QueueSource() },
  { kind: 'woken (PULL_OR_WAKE)', make: () => new WakingQueueSource() },
];

describe.each(sources)('deliverEvents from a source $kind', ({ make }) => {
  it('writes every ready event of a burst, then one flush before it waits again', async () => {
    const { host, log, checks } = fakeHost(() => true);
    const source = make();
    const op = operation();
    const done = deliverEvents(host, op, source, Buffer.from(''), bytes);
    source.push(1, 2, 3);
    await settle();
    source.push(4);
    await settle();
    expect(log).toEqual(['e1', 'e2', 'e3', 'flush', 'e4', 'flush']);
    // Authorization is checked once per pass, not once per event.
    expect(checks()).toBe(2);
    await source.return();
    await done;
  });

  it('keeps a result that is still resolving in the same write as the events before it', async () => {
    const { host, log } = fakeHost(() => true);
    const source = make();
    const done = deliverEvents(host, operation(), source, Buffer.from(''), {
      result: (event) => (event === 2 ? Promise.resolve(Buffer.from('e2')) : bytes.result(event)),
    });
    source.push(1, 2, 3);
    await settle();
    expect(log).toEqual(['e1', 'e2', 'e3', 'flush']);
    await source.return();
    await done;
  });

  it('stops before the first write of a pass once the token is revoked', async () => {
    let allowed = true;
    const op = operation();
    // As the connection does: a failed check closes the socket, which ends its operations.
    const { host, log } = fakeHost(() => {
      if (!allowed) op.cancelled = true;
      return allowed;
    });
    const source = make();
    const done = deliverEvents(host, op, source, Buffer.from(''), bytes);
    source.push(1);
    await settle();
    allowed = false;
    source.push(2, 3);
    await done;
    expect(log).toEqual(['e1', 'flush']);
  });

  it('ends with complete once the source ends, after the events it still had', async () => {
    const { host, log } = fakeHost(() => true);
    const source = make();
    const op = operation();
    const done = deliverEvents(host, op, source, Buffer.from(''), bytes);
    source.push(1);
    await settle();
    await source.return();
    await done;
    expect(log).toEqual(['e1', 'flush', JSON.stringify({ id: '1', type: 'complete' })]);
  });
});

describe('deliverEvents from a failing source', () => {
  it('answers a source that fails mid-stream with its errors and complete', async () => {
    const { host, log } = fakeHost(() => true);
    const failing: AsyncIterator<number> = {
      next: () => Promise.reject(new Error('RESUME_EXPIRED')),
    };
    await deliverEvents(host, operation(), failing, Buffer.from(''), bytes);
    expect(log.map((frame) => JSON.parse(frame).type)).toEqual(['next', 'complete']);
  });

  it('answers a waking source that fails with its errors and complete, never awaiting it', async () => {
    const { host, log } = fakeHost(() => true);
    const failing = new WakingQueueSource();
    failing[PULL_READY] = () => {
      throw new Error('RESUME_EXPIRED');
    };
    await deliverEvents(host, operation(), failing, Buffer.from(''), bytes);
    expect(log.map((frame) => JSON.parse(frame).type)).toEqual(['next', 'complete']);
  });
});
