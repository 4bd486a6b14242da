import { describe, expect, it } from 'vitest';
import { completeFrame, nextFrame, nextFrameBytes, nextFramePrefix, parseClientMessage } from './protocol.js';

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
    ]) {
      expect(parseClientMessage(text)).toBeNull();
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
