import { describe, expect, it } from 'vitest';
import { MAX_SHARED_PREFIXES, nextFramePrefix } from './protocol.js';
import { encodeNextFrame, encodeNextFrames } from './ws-frames.js';

/** What a prefix must hold, built the plain way. */
const expected = (id: string) => Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);

// Its own file: the shared prefixes are process-wide, and this counts them from none.
describe('nextFramePrefix sharing', () => {
  it(`shares one buffer per id for the first ${MAX_SHARED_PREFIXES} ids, then builds the same bytes unshared`, () => {
    const ids = [
      '1',
      '订阅-一',
      'sub-😀',
      'lone-\ud800',
      ...Array.from({ length: MAX_SHARED_PREFIXES - 2 }, (_, i) => `p${i}`),
    ];
    expect(ids).toHaveLength(MAX_SHARED_PREFIXES + 2);
    const first = ids.map((id) => nextFramePrefix(id));
    const again = ids.map((id) => nextFramePrefix(id));
    ids.forEach((id, i) => {
      expect(first[i]).toEqual(expected(id));
      // The frame parses back to the id, lone surrogate included (escaped by JSON.stringify).
      expect(JSON.parse(`${first[i]?.toString()}null}`).id).toBe(id);
    });
    // n − 1 and n: shared; n + 1 and beyond: a buffer per call, same bytes.
    expect(again[MAX_SHARED_PREFIXES - 2]).toBe(first[MAX_SHARED_PREFIXES - 2]);
    expect(again[MAX_SHARED_PREFIXES - 1]).toBe(first[MAX_SHARED_PREFIXES - 1]);
    expect(again[MAX_SHARED_PREFIXES]).not.toBe(first[MAX_SHARED_PREFIXES]);
    expect(again[MAX_SHARED_PREFIXES + 1]).not.toBe(first[MAX_SHARED_PREFIXES + 1]);
    expect(again[MAX_SHARED_PREFIXES]).toEqual(first[MAX_SHARED_PREFIXES]);
  });

  it('encodes one frame per payload and prefix, shared by the sockets that ask', () => {
    const payload = Buffer.from('{"data":{"jobProgress":{"textDelta":"订阅 😀","toolCall":null}}}');
    const one = nextFramePrefix('1');
    const two = nextFramePrefix('2');
    const frame = encodeNextFrame(one, payload);
    expect(frame).toEqual(encodeNextFrames([one, payload]));
    expect(encodeNextFrame(one, payload)).toBe(frame);
    // Another prefix, or the same bytes in another payload buffer: a frame of its own, still exact.
    expect(encodeNextFrame(two, payload)).toEqual(encodeNextFrames([two, payload]));
    const copy = Buffer.from(payload);
    expect(encodeNextFrame(one, copy)).not.toBe(frame);
    expect(encodeNextFrame(one, copy)).toEqual(frame);
  });
});
