import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { ANSWER_CALL_CHARS, ANSWER_MAX_CHARS, ChunkAccumulator } from './chunk-accumulator.js';
import { ModelCallError } from './model-call-error.js';
import { ProviderBodyError, readBodyText } from './provider-http.js';

const silent = { text: () => {}, tool: () => {} };
const text = (content: string) => ({ choices: [{ index: 0, delta: { content } }] }) as unknown as ChatCompletionChunk;
const calls = (from: number, count: number) =>
  ({
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: Array.from({ length: count }, (_, i) => ({ index: from + i, function: { arguments: '' } })),
        },
      },
    ],
  }) as unknown as ChatCompletionChunk;

/** An answer of `units` UTF-16 code units of `unit`, sent in chunks of about 1 Mi units; the error, if any. */
function answer(unit: string, units: number): unknown {
  const accumulator = new ChunkAccumulator('call', silent);
  const whole = unit.repeat(Math.floor(units / unit.length));
  const rest = 'x'.repeat(units - whole.length);
  try {
    for (let at = 0; at < whole.length; at += 2 ** 20) accumulator.push(text(whole.slice(at, at + 2 ** 20)));
    if (rest !== '') accumulator.push(text(rest));
    return null;
  } catch (error) {
    return error;
  }
}

describe('ANSWER_MAX_CHARS', () => {
  it.each([
    ['ASCII', 'a'],
    ['CJK', '数'],
    ['emoji', '😀'],
    ['lone surrogates', '\ud800'],
  ])('takes an answer of n − 1 and n code units of %s, and fails the call at n + 1', (_name, unit) => {
    expect(answer(unit, ANSWER_MAX_CHARS - 1)).toBeNull();
    expect(answer(unit, ANSWER_MAX_CHARS)).toBeNull();
    const error = answer(unit, ANSWER_MAX_CHARS + 1);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ kind: 'failed', message: expect.stringContaining('passed') });
    // Billed as far as it came: the text before the chunk that passed the limit.
    expect((error as ModelCallError).cutShort?.outputBytes).toBeGreaterThan(0);
  });

  it('counts tool calls, so an answer of endless empty calls fails too', () => {
    const accumulator = new ChunkAccumulator('call', silent);
    const limit = ANSWER_MAX_CHARS / ANSWER_CALL_CHARS;
    accumulator.push(calls(0, limit));
    expect(() => accumulator.push(calls(limit, 1))).toThrow(ModelCallError);
  });
});

describe("readBodyText's limit for an answer", () => {
  const body = (bytes: number) => {
    const stream = new PassThrough();
    stream.end(Buffer.alloc(bytes, 0x61));
    return stream as unknown as IncomingMessage;
  };
  const signal = new AbortController().signal;

  it('reads a body of n − 1 and n bytes, and breaks one of n + 1 off at n, with what came', async () => {
    expect(await readBodyText(body(99), signal, 100, 'fail')).toHaveLength(99);
    expect(await readBodyText(body(100), signal, 100, 'fail')).toHaveLength(100);
    const error = await readBodyText(body(101), signal, 100, 'fail').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderBodyError);
    expect((error as ProviderBodyError).received).toHaveLength(100);
    // An error answer is still cut, not failed.
    expect(await readBodyText(body(101), signal, 100)).toHaveLength(100);
  });
});
