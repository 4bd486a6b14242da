import { describe, expect, it } from 'vitest';
import {
  completeFrame,
  MAX_OPERATION_ID_BYTES,
  nextFrame,
  nextFrameBytes,
  nextFramePrefix,
  parseClientMessage,
} from './protocol.js';

describe('parseClientMessage', () => {
  it('accepts the client messages of graphql-transport-ws', () => {
    expect(parseClientMessage('{"type":"connection_init","payload":{"authorization":"Bearer x"}}')).toEqual({
      type: 'connection_init',
      payload: { authorization: 'Bearer x' },
    });
    expect(parseClientMessage('{"type":"ping"}')).toEqual({ type: 'ping' });
    expect(parseClientMessage('{"id":"1","type":"subscribe","payload":{"query":"{ a }","variables":null}}')).toEqual({
      id: '1',
      type: 'subscribe',
      payload: { query: '{ a }', variables: null },
    });
    expect(parseClientMessage('{"id":"1","type":"complete"}')).toEqual({ id: '1', type: 'complete' });
  });

  it('refuses anything else (the connection closes with 4400)', () => {
    for (const text of [
      'nope',
      '[]',
      '{"type":"next","id":"1"}',
      '{"type":"subscribe","payload":{"query":"{ a }"}}',
      '{"type":"subscribe","id":"","payload":{"query":"{ a }"}}',
      '{"type":"subscribe","id":"1","payload":{"query":1}}',
      '{"type":"subscribe","id":"1","payload":{"query":"{ a }","variables":[1]}}',
      '{"type":"complete"}',
      '{"type":"connection_init","payload":"x"}',
      '{"type":"subscribe","id":"1","payload":{"query":"{ a }","extensions":"x"}}',
      '{"type":"subscribe","id":"1","payload":{"query":"{ a }","operationName":7}}',
      '{"type":"connection_ack"}',
      '{"type":"error","id":"1","payload":[]}',
      '{"type":7}',
    ]) {
      expect(parseClientMessage(text)).toBeNull();
    }
  });

  it(`accepts ids of ${MAX_OPERATION_ID_BYTES - 1} and ${MAX_OPERATION_ID_BYTES} UTF-8 bytes and refuses ${MAX_OPERATION_ID_BYTES + 1}, in ASCII, CJK, emoji and lone surrogates`, () => {
    const message = (id: string) => JSON.stringify({ id, type: 'subscribe', payload: { query: '{ a }' } });
    const complete = (id: string) => JSON.stringify({ id, type: 'complete' });
    for (const [unit, bytes] of [
      ['a', 1],
      ['数', 3],
      ['😀', 4],
      ['\ud800', 3],
    ] as const) {
      const most = Math.floor(MAX_OPERATION_ID_BYTES / bytes);
      // Filled up with ASCII to land on n−1, n and n+1 bytes exactly.
      const id = (total: number) =>
        unit.repeat(Math.min(most, Math.floor(total / bytes))) +
        'x'.repeat(total - Math.min(most, Math.floor(total / bytes)) * bytes);
      for (const total of [MAX_OPERATION_ID_BYTES - 1, MAX_OPERATION_ID_BYTES]) {
        expect(Buffer.byteLength(id(total))).toBe(total);
        expect(parseClientMessage(message(id(total)))).not.toBeNull();
        expect(parseClientMessage(complete(id(total)))).not.toBeNull();
      }
      expect(Buffer.byteLength(id(MAX_OPERATION_ID_BYTES + 1))).toBe(MAX_OPERATION_ID_BYTES + 1);
      expect(parseClientMessage(message(id(MAX_OPERATION_ID_BYTES + 1)))).toBeNull();
      expect(parseClientMessage(complete(id(MAX_OPERATION_ID_BYTES + 1)))).toBeNull();
    }
  });
});

describe('frames', () => {
  it('splices a serialized payload into a next frame that parses as the protocol message', () => {
    const payload = JSON.stringify({ data: { a: 'x"y' } });
    expect(JSON.parse(nextFrame('id "1"', payload))).toEqual({
      id: 'id "1"',
      type: 'next',
      payload: { data: { a: 'x"y' } },
    });
    expect(JSON.parse(completeFrame('2'))).toEqual({ id: '2', type: 'complete' });
  });

  it('builds the same next frame as bytes from a prefix and a shared payload, multi-byte text included', () => {
    const payload = JSON.stringify({ data: { a: 'é → 😀 "q"' } });
    const bytes = nextFrameBytes(nextFramePrefix('ü"1'), Buffer.from(payload));
    expect(bytes.toString('utf8')).toBe(nextFrame('ü"1', payload));
    expect(JSON.parse(bytes.toString('utf8')).payload).toEqual({ data: { a: 'é → 😀 "q"' } });
  });
});
