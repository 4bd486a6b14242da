import { describe, expect, it } from 'vitest';
import { PULL_READY } from './live/ready-events.js';
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
});
