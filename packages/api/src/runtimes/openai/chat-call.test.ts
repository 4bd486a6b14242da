import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel, ModelCallError } from './chat-call.js';

/** A client whose provider answers every call with `status` (the HTTP boundary, no network). */
function failingClient(status: number) {
  let calls = 0;
  const client = new OpenAI({
    baseURL: 'http://provider.invalid/v1',
    apiKey: 'k',
    maxRetries: 0,
    logLevel: 'off',
    fetch: async () => {
      calls += 1;
      return new Response(JSON.stringify({ error: { message: 'busy' } }), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { client, calls: () => calls };
}

describe('callModel retries within the turn deadline', () => {
  it('names the provider failure, not the deadline, when a backoff wait ends past the deadline', async () => {
    const { client, calls } = failingClient(503);
    let now = 1_000;
    const error = await callModel(
      modelCall(client, {
        deadlineMs: 2_000,
        nowMs: () => now,
        // A timer that fires late on a busy machine: the wait was short, the clock moved far.
        sleep: async () => {
          now += 5_000;
          return true;
        },
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toMatch(/kept failing \(.*503.*\); gave up after 1 attempt/);
    expect((error as ModelCallError).code).toBe('PROVIDER_UNAVAILABLE');
    expect(calls()).toBe(1);
  });

  it('still says the deadline passed when no attempt was made', async () => {
    const { client, calls } = failingClient(503);
    const error = await callModel(modelCall(client, { deadlineMs: 1_000, nowMs: () => 1_000 })).catch(
      (caught: unknown) => caught,
    );
    expect((error as ModelCallError).message).toBe('The turn deadline passed before the model answered.');
    expect(calls()).toBe(0);
  });
});

describe('callModel request', () => {
  /** A client that records each request and answers a complete non-streamed or streamed answer. */
  function recordingClient(failFirst: boolean) {
    const seen: { method: string; url: string; type: string | null; body: string }[] = [];
    const client = new OpenAI({
      baseURL: 'http://provider.invalid/v1',
      apiKey: 'k',
      maxRetries: 0,
      logLevel: 'off',
      fetch: async (url, init) => {
        const request = new Request(url, init);
        seen.push({
          method: request.method,
          url: request.url,
          type: request.headers.get('content-type'),
          body: await request.text(),
        });
        if (failFirst && seen.length === 1) return new Response('{}', { status: 503 });
        if (JSON.parse(seen.at(-1)?.body ?? '{}').stream) {
          const chunk = { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] };
          return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, {
            headers: { 'content-type': 'text/event-stream' },
          });
        }
        const answer = {
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        };
        return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
      },
    });
    return { client, seen };
  }

  const body = {
    model: 'm',
    messages: [
      { role: 'system' as const, content: 'Résumé 調査 🙂 \uD800' },
      { role: 'user' as const, content: 'hi' },
    ],
    max_tokens: 5,
  };

  for (const [stream, keepMessages] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    it(`posts the JSON chat.completions.create would send (stream ${stream}, kept messages ${keepMessages}), the same bytes on a retry`, async () => {
      const { client, seen } = recordingClient(true);
      const answer = await callModel(
        modelCall(client, { body, stream, keepMessages, deadlineMs: Date.now() + 60_000, retryBaseMs: 1 }),
      );
      expect(answer.content).toBe('ok');
      const sent = stream ? { ...body, stream: true, stream_options: { include_usage: true } } : { ...body, stream };
      expect(seen).toHaveLength(2);
      for (const request of seen) {
        expect(request).toEqual({
          method: 'POST',
          url: 'http://provider.invalid/v1/chat/completions',
          type: 'application/json',
          body: JSON.stringify(sent),
        });
      }
    });
  }
});
