import { describe, expect, it } from 'vitest';
import { isSharedPrefix, nextFramePrefix, SHARED_PREFIX_IDS } from './protocol.js';
import { encodeNextFrame, encodeNextFrames } from './ws-frames.js';

/** What a prefix must hold, built the plain way. */
const expected = (id: string) => Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);

const endOfTask = () => new Promise((resolve) => setImmediate(resolve));

describe('nextFramePrefix sharing', () => {
  it(`shares one buffer per id for ids 0 to ${SHARED_PREFIX_IDS - 1} only, and builds the same bytes for any id`, () => {
    const shared = ['0', '1', '2', String(SHARED_PREFIX_IDS - 2), String(SHARED_PREFIX_IDS - 1)];
    const own = [
      String(SHARED_PREFIX_IDS),
      String(SHARED_PREFIX_IDS + 1),
      '01',
      '-1',
      '1.5',
      '１',
      '订阅-一',
      'sub-😀',
      'lone-\ud800',
      '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    ];
    for (const id of [...shared, ...own]) {
      const first = nextFramePrefix(id);
      expect(first).toEqual(expected(id));
      // The frame parses back to the id, lone surrogate included (escaped by JSON.stringify).
      expect(JSON.parse(`${first.toString()}null}`).id).toBe(id);
      expect(nextFramePrefix(id) === first, id).toBe(shared.includes(id));
      expect(isSharedPrefix(first), id).toBe(shared.includes(id));
    }
  });

  it('can be filled by no client: any number of other ids leaves the small ids shared', () => {
    for (let i = 0; i < 5_000; i += 1) nextFramePrefix(`junk-${i}`);
    expect(nextFramePrefix('1')).toBe(nextFramePrefix('1'));
    expect(nextFramePrefix('junk-1')).not.toBe(nextFramePrefix('junk-1'));
  });
});

describe('encodeNextFrame', () => {
  const payload = Buffer.from('{"data":{"jobProgress":{"textDelta":"订阅 😀","toolCall":null}}}');

  it('encodes one frame per payload and shared prefix within a task, exact bytes', async () => {
    const [one, two] = [nextFramePrefix('1'), nextFramePrefix('2')];
    const frame = encodeNextFrame(one, payload);
    expect(frame).toEqual(encodeNextFrames([one, payload]));
    expect(encodeNextFrame(one, payload)).toBe(frame);
    // Another prefix, or the same bytes in another payload buffer: a frame of its own, still exact.
    expect(encodeNextFrame(two, payload)).toEqual(encodeNextFrames([two, payload]));
    const copy = Buffer.from(payload);
    expect(encodeNextFrame(one, copy)).not.toBe(frame);
    expect(encodeNextFrame(one, copy)).toEqual(frame);
    // Nothing is kept past the task: the next one encodes again.
    await endOfTask();
    expect(encodeNextFrame(one, payload)).not.toBe(frame);
    expect(encodeNextFrame(one, payload)).toEqual(frame);
  });

  it('encodes per call, and keeps nothing, for a prefix of its own', () => {
    const uuid = nextFramePrefix('7c9e6679-7425-40de-944b-e07fc1f90ae7');
    const frame = encodeNextFrame(uuid, payload);
    expect(frame).toEqual(encodeNextFrames([uuid, payload]));
    expect(encodeNextFrame(uuid, payload)).not.toBe(frame);
  });
});
