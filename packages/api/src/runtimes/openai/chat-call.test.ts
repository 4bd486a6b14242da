import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackProvider, startLoopbackProvider } from '../../../test/support/loopback-provider.js';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel, ModelCallError } from './chat-call.js';

let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await provider?.close();
  provider = null;
});

/** A provider that answers every call with `status` and an error JSON. */
async function failingClient(status: number) {
  provider = await startLoopbackProvider((_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'busy' } }));
  });
  const seen = provider.seen;
  return { client: provider.endpoint(), calls: () => seen.length };
}

describe('callModel retries within the turn deadline', () => {
  it('names the provider failure, not the deadline, when a backoff wait ends past the deadline', async () => {
    const { client, calls } = await failingClient(503);
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
    const { client, calls } = await failingClient(503);
    const error = await callModel(modelCall(client, { deadlineMs: 1_000, nowMs: () => 1_000 })).catch(
      (caught: unknown) => caught,
    );
    expect((error as ModelCallError).message).toBe('The turn deadline passed before the model answered.');
    expect((error as ModelCallError).code).toBe('TIMEOUT');
    expect(calls()).toBe(0);
  });

  it('fails a call whose answer has not begun by the deadline as TIMEOUT, not as a failing provider', async () => {
    // A provider that takes the request and never answers: slow, not failing.
    provider = await startLoopbackProvider(() => undefined);
    const error = await callModel(modelCall(provider.endpoint(), { deadlineMs: Date.now() + 100 })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).code).toBe('TIMEOUT');
    expect((error as ModelCallError).message).toBe(
      'The turn deadline passed while waiting for the model provider to begin its answer.',
    );
    expect(provider.seen).toHaveLength(1);
  });
});

describe('callModel request', () => {
  /** A provider that records each request and answers a complete non-streamed or streamed answer. */
  async function recordingClient(failFirst: boolean) {
    provider = await startLoopbackProvider((request, res) => {
      if (failFirst && provider?.seen.length === 1) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (JSON.parse(request.body).stream) {
        const chunk = { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
        return;
      }
      const answer = { choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    const seen = provider.seen.map.bind(provider.seen);
    return {
      client: provider.endpoint(),
      seen: () =>
        seen((request) => ({
          method: request.method,
          url: request.path,
          type: request.headers['content-type'] ?? null,
          body: request.body,
        })),
    };
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
      const { client, seen } = await recordingClient(true);
      const answer = await callModel(
        modelCall(client, { body, stream, keepMessages, deadlineMs: Date.now() + 60_000, retryBaseMs: 1 }),
      );
      expect(answer.content).toBe('ok');
      const sent = stream ? { ...body, stream: true, stream_options: { include_usage: true } } : { ...body, stream };
      expect(seen()).toHaveLength(2);
      for (const request of seen()) {
        expect(request).toEqual({
          method: 'POST',
          url: '/v1/chat/completions',
          type: 'application/json',
          body: JSON.stringify(sent),
        });
      }
    });
  }
});
