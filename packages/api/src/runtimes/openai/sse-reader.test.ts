import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProviderAbortError, ProviderConnectionError } from './provider-http.js';
import { readSseEvents, SSE_EVENT_MAX_CHARS, type SseEnd, SseEventTooLargeError } from './sse-reader.js';

const END: SseEnd = { data: '[DONE]', lingerMs: 10_000 };

/** Reads `chunks` (written one by one, then ended unless `open`) and returns the data seen and the outcome. */
async function read(chunks: readonly (string | Buffer)[], options: { open?: boolean; signal?: AbortSignal } = {}) {
  const body = new PassThrough();
  const seen: string[] = [];
  const outcome = readSseEvents(body, options.signal ?? new AbortController().signal, END, (data) => {
    seen.push(data);
  });
  for (const chunk of chunks) body.write(chunk);
  if (!options.open) body.end();
  return { outcome: await outcome, seen, body };
}

describe('readSseEvents', () => {
  it('hands over each event in order, however the bytes are cut (random cuts, multi-byte characters split)', async () => {
    const events = ['{"a":"Résumé"}', '調査 🙂', 'x\ny', '\\ud800 escaped', ''];
    const wire = Buffer.from(
      `: a comment\n${events
        .map(
          (data) =>
            `${data
              .split('\n')
              .map((line) => `data: ${line}`)
              .join('\n')}\n\n`,
        )
        .join('')}event: other\ndata: [DONE]\n\n`,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: wire.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), wire.length];
          const chunks = at.slice(1).map((end, i) => wire.subarray(at[i], end));
          const { outcome, seen } = await read(chunks, { open: true });
          expect(outcome).toBe('end-event');
          expect(seen).toEqual(events);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('drops a byte-order mark before the first event, whole or split across chunks', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const wire = Buffer.concat([bom, Buffer.from('data: first\n\ndata: second\n\n')]);
    for (const chunks of [[wire], [wire.subarray(0, 1), wire.subarray(1, 2), wire.subarray(2)]]) {
      const { seen } = await read(chunks);
      expect(seen).toEqual(['first', 'second']);
    }
  });

  it('reads CRLF and CR line endings, and an event the body ends without a blank line', async () => {
    const { outcome, seen } = await read(['data: one\r\n\r\ndata: two\r\rdata: last']);
    expect(outcome).toBe('ended');
    expect(seen).toEqual(['one', 'two', 'last']);
  });

  it('drops what follows the end event and reads the body on to its end, without destroying it', async () => {
    const { outcome, seen, body } = await read(['data: a\n\ndata: [DONE]\n\ndata: after\n\n'], { open: true });
    expect(outcome).toBe('end-event');
    expect(seen).toEqual(['a']);
    body.end('data: more after\n\n');
    await new Promise((resolve) => body.once('end', resolve));
    // Read to its end (a destroyed body never ends), so its connection could serve the next call.
    expect(body.readableEnded).toBe(true);
    expect(seen).toEqual(['a']);
  });

  it('stops at once when the signal aborts, though the body never ends, and destroys the body', async () => {
    const controller = new AbortController();
    const body = new PassThrough();
    const outcome = readSseEvents(body, controller.signal, END, () => controller.abort());
    body.write('data: first\n\n');
    await expect(outcome).rejects.toBeInstanceOf(ProviderAbortError);
    expect(body.destroyed).toBe(true);
  });

  it('rejects with what the consumer threw, and destroys the body', async () => {
    const body = new PassThrough();
    const outcome = readSseEvents(body, new AbortController().signal, END, (data) => {
      if (data === 'bad') throw new SyntaxError('not JSON');
    });
    body.write('data: good\n\ndata: bad\n\ndata: never\n\n');
    await expect(outcome).rejects.toThrow(SyntaxError);
    expect(body.destroyed).toBe(true);
  });

  it('names a body that breaks off as a connection failure', async () => {
    const body = new PassThrough();
    const outcome = readSseEvents(body, new AbortController().signal, END, () => undefined);
    body.write('data: partial');
    body.destroy(new Error('socket hang up'));
    await expect(outcome).rejects.toThrow(ProviderConnectionError);
  });
});

describe('SSE_EVENT_MAX_CHARS: what an unfinished event may hold', () => {
  const prefix = 'data: ';
  // Characters as JavaScript counts them (UTF-16 code units): an emoji is two, a lone surrogate
  // arrives escaped in the JSON (ASCII).
  const fills = { ASCII: 'a', CJK: '調', emoji: '🙂', 'lone surrogate (escaped)': '\\ud800' };
  for (const [name, unit] of Object.entries(fills)) {
    it(`keeps n − 1 and n characters of an event still arriving, and fails at n + 1 (${name})`, async () => {
      for (const extra of [-1, 0, 1]) {
        const total = SSE_EVENT_MAX_CHARS + extra;
        const room = total - prefix.length;
        const line = `${prefix}${unit.repeat(Math.floor(room / unit.length))}${'a'.repeat(room % unit.length)}`;
        expect(line.length).toBe(total);
        const body = new PassThrough();
        const seen: number[] = [];
        const outcome = readSseEvents(body, new AbortController().signal, END, (data) => {
          seen.push(data.length);
        });
        // The line arrives in one chunk without its end: all of it waits in the parser.
        body.write(Buffer.from(line));
        body.end('\n\n');
        if (extra <= 0) {
          await expect(outcome).resolves.toBe('ended');
          expect(seen).toEqual([total - prefix.length]);
        } else {
          await expect(outcome).rejects.toBeInstanceOf(SseEventTooLargeError);
          expect(seen).toEqual([]);
        }
      }
    });
  }
});
