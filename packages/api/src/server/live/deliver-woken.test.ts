import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { ProgressStream } from '../progress-stream.js';
import type { OperationHost } from './connection-deps.js';
import { deliverEvents } from './deliver-events.js';
import { FrameWriter } from './frame-writer.js';
import type { Operation } from './operation-slots.js';
import { nextFramePrefix } from './protocol.js';
import { encodeNextFrames } from './ws-frames.js';

/** No test here expects a flush to fail. */
const failed = (error: unknown) => {
  throw error;
};

/** One socket (what reaches its TCP socket) behind a real FrameWriter, and a host for it. */
function socketHost() {
  const writes: (Buffer | string)[] = [];
  const socket = {
    OPEN: 1,
    readyState: 1,
    extensions: '',
    bufferedAmount: 0,
    _socket: { write: (data: Buffer) => writes.push(data) },
    send: (text: string) => writes.push(text),
  };
  const writer = new FrameWriter(socket as unknown as WebSocket, 1 << 20, () => {}, failed);
  const host: OperationHost = {
    deps: { maskError: (error: unknown) => error } as unknown as OperationHost['deps'],
    writer,
    authorized: () => true,
    finish: (operation) => {
      operation.cancelled = true;
      void operation.iterator?.return?.();
    },
  };
  return { host, writes };
}

const operation = (id: string, iterator: AsyncIterator<unknown>): Operation => ({
  id,
  owner: 'alice' as Operation['owner'],
  cancelled: false,
  iterator,
});
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** Views are shared bytes already (as a group's result is once computed). */
const results = { result: (view: unknown) => view as Buffer };

describe('deliverEvents from progress streams (woken)', () => {
  it('writes the tokens of every job one socket follows, pushed in one turn, in one write', async () => {
    const { host, writes } = socketHost();
    const [a, b] = [new ProgressStream<Buffer>(() => {}), new ProgressStream<Buffer>(() => {})];
    const [opA, opB] = [operation('1', a), operation('2', b)];
    const done = [
      deliverEvents(host, opA, a, nextFramePrefix('1'), results),
      deliverEvents(host, opB, b, nextFramePrefix('2'), results),
    ];
    const token = (text: string) => Buffer.from(`{"data":{"jobProgress":{"textDelta":"${text}"}}}`);
    const [a1, b1, a2] = [token('a1 订阅'), token('b1 😀'), token('a2')];
    a.push(a1);
    b.push(b1);
    a.push(a2);
    expect(writes).toEqual([]);
    await turn();
    // One write for the socket: job a's two tokens, then job b's (each stream's pass in turn).
    expect(writes).toEqual([
      encodeNextFrames([nextFramePrefix('1'), a1, nextFramePrefix('1'), a2, nextFramePrefix('2'), b1]),
    ]);
    // The next token of one job is its own write; the end of a stream answers `complete`.
    b.push(token('b2'));
    await turn();
    expect(writes[1]).toEqual(encodeNextFrames([nextFramePrefix('2'), token('b2')]));
    await a.return();
    await b.return();
    await Promise.all(done);
    expect(writes.slice(2)).toEqual(['{"id":"1","type":"complete"}', '{"id":"2","type":"complete"}']);
    expect([opA.cancelled, opB.cancelled]).toEqual([true, true]);
  });

  it('sends complete after the pending tokens when the stream ends by itself', async () => {
    const { host, writes } = socketHost();
    const stream = new ProgressStream<Buffer>(() => {});
    const op = operation('7', stream);
    const done = deliverEvents(host, op, stream, nextFramePrefix('7'), results);
    const view = Buffer.from('{"data":{"jobProgress":{"textDelta":"x"}}}');
    stream.push(view);
    await turn();
    // Ended as a subscriber too far behind is: the views it had are dropped, then complete.
    for (let i = 0; i <= 1024; i += 1) stream.push(view);
    await done;
    expect(writes).toEqual([encodeNextFrames([nextFramePrefix('7'), view]), '{"id":"7","type":"complete"}']);
    expect(op.cancelled).toBe(true);
  });

  it('fails the delivery, instead of throwing into the source, when a woken step throws', async () => {
    const { host, writes } = socketHost();
    const stream = new ProgressStream<Buffer>(() => {});
    const done = deliverEvents(host, operation('3', stream), stream, nextFramePrefix('3'), results);
    // The socket breaks: sending `complete` at the end throws inside the source's own call.
    (host.writer as unknown as { send(text: string): void }).send = () => {
      throw new Error('socket broke');
    };
    await expect(stream.return().then(() => done)).rejects.toThrow('socket broke');
    expect(writes).toEqual([]);
  });
});
