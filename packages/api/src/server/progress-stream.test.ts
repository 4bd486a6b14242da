import { describe, expect, it } from 'vitest';
import { PULL_OR_WAKE, PULL_READY } from './live/ready-events.js';
import { PROGRESS_BACKLOG, ProgressStream } from './progress-stream.js';

describe('ProgressStream', () => {
  it('hands a push to the waiting next(), and queued pushes over synchronously, in order', async () => {
    const stream = new ProgressStream<string>(() => {});
    const waiting = stream.next();
    stream.push('a');
    expect(await waiting).toEqual({ done: false, value: 'a' });
    expect(stream[PULL_READY]()).toBeUndefined();
    stream.push('b');
    stream.push('c');
    expect(stream[PULL_READY]()).toEqual({ done: false, value: 'b' });
    expect(await stream.next()).toEqual({ done: false, value: 'c' });
    expect(stream[PULL_READY]()).toBeUndefined();
  });

  it('wakes a waiting next() once for the views pushed in one turn; the rest are ready at once', async () => {
    const stream = new ProgressStream<string>(() => {});
    const waiting = stream.next();
    stream.push('a');
    stream.push('b');
    stream.push('c');
    expect(await waiting).toEqual({ done: false, value: 'a' });
    // What the live server does next: takes every ready view for the same write.
    expect([stream[PULL_READY](), stream[PULL_READY](), stream[PULL_READY]()]).toEqual([
      { done: false, value: 'b' },
      { done: false, value: 'c' },
      undefined,
    ]);
  });

  it('releases once on return, ends a waiting next(), and ignores later pushes', async () => {
    let released = 0;
    const stream = new ProgressStream<string>(() => {
      released += 1;
    });
    const waiting = stream.next();
    await stream.return();
    await stream.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    stream.push('late');
    expect(stream[PULL_READY]()).toBeUndefined();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(released).toBe(1);
  });

  it(`ends a subscriber more than ${PROGRESS_BACKLOG} views behind instead of queueing without limit`, async () => {
    let released = 0;
    const stream = new ProgressStream<number>(() => {
      released += 1;
    });
    for (let i = 0; i < PROGRESS_BACKLOG; i += 1) stream.push(i);
    expect(released).toBe(0);
    stream.push(PROGRESS_BACKLOG);
    expect(released).toBe(1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('is its own async iterator (for await, as graphql-js reads a source stream)', async () => {
    const stream = new ProgressStream<number>(() => {});
    stream.push(1);
    stream.push(2);
    const seen: number[] = [];
    for await (const value of stream) {
      seen.push(value);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([1, 2]);
  });

  it('calls an armed wake once, a turn after the pushes that make a view ready, not before', async () => {
    const stream = new ProgressStream<string>(() => {});
    let woken = 0;
    const wake = () => {
      woken += 1;
    };
    expect(stream[PULL_OR_WAKE](wake)).toBeUndefined();
    stream.push('a');
    stream.push('b');
    // Not inside the push (the hub's loop over every listener), at the end of the turn.
    expect(woken).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
    expect([stream[PULL_READY](), stream[PULL_READY](), stream[PULL_READY]()]).toEqual([
      { done: false, value: 'a' },
      { done: false, value: 'b' },
      undefined,
    ]);
    // Disarmed after one call: a push without a new arming wakes nobody.
    stream.push('c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
    // Armed while a view is ready: handed over at once, nothing armed.
    expect(stream[PULL_OR_WAKE](wake)).toEqual({ done: false, value: 'c' });
    stream.push('d');
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
  });

  it('calls an armed wake when the stream ends, which then answers the end', async () => {
    let released = 0;
    const stream = new ProgressStream<string>(() => {
      released += 1;
    });
    const seen: (IteratorResult<string> | undefined)[] = [];
    stream[PULL_OR_WAKE](() => seen.push(stream[PULL_OR_WAKE](() => {})));
    await stream.return();
    // Released before the wake: the subscriber finds the stream closed.
    expect(released).toBe(1);
    expect(seen).toEqual([{ done: true, value: undefined }]);
  });

  it('calls an armed wake when a subscriber falls more than the backlog behind', () => {
    const stream = new ProgressStream<number>(() => {});
    let woken = 0;
    stream[PULL_OR_WAKE](() => {
      woken += 1;
    });
    for (let i = 0; i <= PROGRESS_BACKLOG; i += 1) stream.push(i);
    // Ended by the push that overflowed, synchronously (its queue is dropped).
    expect(woken).toBe(1);
    expect(stream[PULL_OR_WAKE](() => {})).toEqual({ done: true, value: undefined });
  });

  it('ends after the views already queued on end(): the last one is delivered, later pushes are not', async () => {
    let released = 0;
    const stream = new ProgressStream<string>(() => {
      released += 1;
    });
    let woken = 0;
    expect(stream[PULL_OR_WAKE](() => (woken += 1))).toBeUndefined();
    stream.push('delta');
    stream.push('final');
    stream.end();
    stream.end();
    stream.push('late');
    // Released at once (stop listening), yet the queued views still go out, through the wake.
    expect(released).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
    expect([stream[PULL_READY](), stream[PULL_READY](), stream[PULL_OR_WAKE](() => {})]).toEqual([
      { done: false, value: 'delta' },
      { done: false, value: 'final' },
      { done: true, value: undefined },
    ]);
    await stream.return();
    expect(released).toBe(1);
  });

  it('ends a waiting subscriber at once on end() when nothing is queued', async () => {
    const waiting = new ProgressStream<string>(() => {});
    const next = waiting.next();
    waiting.end();
    expect(await next).toEqual({ done: true, value: undefined });
    const armed = new ProgressStream<string>(() => {});
    const seen: (IteratorResult<string> | undefined)[] = [];
    armed[PULL_OR_WAKE](() => seen.push(armed[PULL_OR_WAKE](() => {})));
    armed.end();
    expect(seen).toEqual([{ done: true, value: undefined }]);
  });

  it('delivers queued views to next() after end(), then the end', async () => {
    const stream = new ProgressStream<string>(() => {});
    stream.push('final');
    stream.end();
    expect(await stream.next()).toEqual({ done: false, value: 'final' });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
