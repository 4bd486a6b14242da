import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { FrameWriter } from './frame-writer.js';
import { nextFramePrefix } from './protocol.js';
import { encodeNextFrames } from './ws-frames.js';

/** A `ws` socket stand-in: what reaches the TCP socket, and what goes through `ws.send`. */
function fakeSocket() {
  const log: (string | Buffer)[] = [];
  const socket = {
    OPEN: 1,
    readyState: 1,
    extensions: '',
    bufferedAmount: 0,
    _socket: { write: (data: Buffer) => log.push(data) },
    send: (text: string) => log.push(text),
  };
  return { socket, ws: socket as unknown as WebSocket, log };
}

const prefix = Buffer.from('{"id":"1","type":"next","payload":');
/** No test here expects a flush to fail. */
const failed = (error: unknown) => {
  throw error;
};
const payload = (n: number) => Buffer.from(`{"data":{"n":${n}}}`);

describe('FrameWriter', () => {
  it('writes the pending next frames of a burst with one write, after frames sent before them', () => {
    const { ws, log } = fakeSocket();
    const writer = new FrameWriter(ws, 1024, () => {}, failed);
    writer.sendNext(prefix, payload(1));
    writer.sendNext(prefix, payload(2));
    expect(log).toEqual([]);
    // Any other frame goes after the pending ones.
    writer.send('{"id":"1","type":"complete"}');
    expect(log).toEqual([encodeNextFrames([prefix, payload(1), prefix, payload(2)]), '{"id":"1","type":"complete"}']);
    writer.flush();
    expect(log).toHaveLength(2);
  });

  it('flushes on the next turn when asked to, unless a flush came first', async () => {
    const { ws, log } = fakeSocket();
    const writer = new FrameWriter(ws, 1024, () => {}, failed);
    writer.sendNext(prefix, payload(1));
    writer.flushSoon();
    writer.sendNext(prefix, payload(2));
    expect(log).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual([encodeNextFrames([prefix, payload(1), prefix, payload(2)])]);
    writer.sendNext(prefix, payload(3));
    writer.flushSoon();
    writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toHaveLength(2);
  });

  it('reports a slow consumer when its socket buffer, or a burst alone, passes the high-water mark', () => {
    const { socket, ws } = fakeSocket();
    const slow: number[] = [];
    const writer = new FrameWriter(ws, 200, (buffered) => slow.push(buffered), failed);
    socket.bufferedAmount = 250;
    writer.sendNext(prefix, payload(1));
    expect(slow).toEqual([]);
    writer.flush();
    expect(slow).toEqual([250]);
    socket.bufferedAmount = 0;
    for (let n = 0; n < 5; n += 1) writer.sendNext(prefix, payload(n));
    expect(slow).toHaveLength(2);
    expect(slow[1]).toBeGreaterThan(200);
  });

  it('sends nothing once the socket is closing', () => {
    const { socket, ws, log } = fakeSocket();
    const writer = new FrameWriter(ws, 1024, () => {}, failed);
    writer.sendNext(prefix, payload(1));
    socket.readyState = 2;
    writer.flush();
    writer.send('{"type":"pong"}');
    expect(log).toEqual([]);
  });

  it('flushes after the current task with every writer that asked in it, unless flushed first', async () => {
    const sockets = [fakeSocket(), fakeSocket(), fakeSocket()];
    const writers = sockets.map(({ ws }) => new FrameWriter(ws, 1024, () => {}, failed));
    const order: number[] = [];
    sockets.forEach(({ socket, log }, n) => {
      socket._socket.write = (data: Buffer) => {
        order.push(n);
        return log.push(data);
      };
    });
    writers.forEach((writer, n) => {
      writer.sendNext(prefix, payload(n));
      writer.flushAfterTask();
      writer.flushAfterTask();
    });
    // One writer is flushed by hand first, one sends another frame (which flushes its own first).
    writers[1]?.flush();
    writers[2]?.send('{"type":"pong"}');
    expect(order).toEqual([1, 2]);
    expect(sockets[0]?.log).toEqual([]);
    await Promise.resolve();
    expect(order).toEqual([1, 2, 0]);
    expect(sockets.map(({ log }) => log[0])).toEqual([0, 1, 2].map((n) => encodeNextFrames([prefix, payload(n)])));
    expect(sockets[2]?.log[1]).toBe('{"type":"pong"}');
    expect(sockets.map(({ log }) => log.length)).toEqual([1, 1, 2]);
  });

  it('writes one shared buffer to every socket given the same shared prefix and payload in a task', () => {
    const shared = payload(7);
    const one = nextFramePrefix('1');
    const [a, b] = [fakeSocket(), fakeSocket()];
    for (const { ws } of [a, b]) {
      const writer = new FrameWriter(ws, 1024, () => {}, failed);
      writer.sendNext(one, shared);
      writer.flush();
    }
    expect(a.log[0]).toEqual(encodeNextFrames([one, shared]));
    expect(a.log[0]).toBe(b.log[0]);
  });

  it('hands a failed flush after the task to its writer, and still writes the others of the batch', async () => {
    const [bad, good] = [fakeSocket(), fakeSocket()];
    bad.socket._socket.write = () => {
      throw new Error('socket gone');
    };
    const failures: unknown[] = [];
    const writers = [bad, good].map(
      ({ ws }) =>
        new FrameWriter(
          ws,
          1024,
          () => {},
          (error) => failures.push(error),
        ),
    );
    for (const writer of writers) {
      writer.sendNext(prefix, payload(1));
      writer.flushAfterTask();
    }
    await Promise.resolve();
    expect(failures).toEqual([new Error('socket gone')]);
    expect(good.log).toEqual([encodeNextFrames([prefix, payload(1)])]);
    // Neither stays marked as batched: a later request is flushed again.
    writers[1]?.sendNext(prefix, payload(2));
    writers[1]?.flushAfterTask();
    await Promise.resolve();
    expect(good.log).toHaveLength(2);
  });
});
