import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { nextFramePrefix } from './protocol.js';
import { encodeNextFrames } from './ws-frames.js';

/** `ws`'s own frame parser (client side: frames from a server are unmasked); untyped in @types/ws. */
const { Receiver } = createRequire(import.meta.url)('ws') as {
  Receiver: new (options: { isServer: boolean; maxPayload: number }) => Writable;
};

/** Parses bytes with `ws`'s receiver: the text messages, in order; throws on a malformed frame. */
function receive(bytes: Buffer): string[] {
  const receiver = new Receiver({ isServer: false, maxPayload: 0 });
  const messages: string[] = [];
  receiver.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) throw new Error('binary frame');
    messages.push(data.toString('utf8'));
  });
  receiver.on('error', (error) => {
    throw error;
  });
  receiver.write(bytes);
  return messages;
}

describe('encodeNextFrames', () => {
  it('frames several next messages in one buffer that a WebSocket client reads back one by one', () => {
    const prefix = nextFramePrefix('sub-ü');
    // Message lengths on both sides of each header size: 7-bit, 16-bit and 64-bit lengths.
    const texts = [0, 59, 60, 65_469, 65_470].map((n) => `é😀${'x'.repeat(n)}`);
    const payloads = texts.map((text) => Buffer.from(JSON.stringify({ data: { text } })));
    const lengths = payloads.map((payload) => prefix.length + payload.length + 1);
    expect(lengths).toEqual([66, 125, 126, 65_535, 65_536]);
    const messages = receive(encodeNextFrames(payloads.flatMap((payload) => [prefix, payload])));
    expect(messages.map((message) => JSON.parse(message))).toEqual(
      texts.map((text) => ({ id: 'sub-ü', type: 'next', payload: { data: { text } } })),
    );
  });
});
