import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
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
    const error = await callModel({
      client,
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      stream: false,
      signal: new AbortController().signal,
      deadlineMs: 2_000,
      nowMs: () => now,
      retryBaseMs: 10,
      // A timer that fires late on a busy machine: the wait was short, the clock moved far.
      sleep: async () => {
        now += 5_000;
        return true;
      },
      progress: { text: () => undefined, tool: () => undefined },
      idPrefix: 'call_x',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toMatch(/kept failing \(.*503.*\); gave up after 1 attempt/);
    expect((error as ModelCallError).code).toBe('PROVIDER_UNAVAILABLE');
    expect(calls()).toBe(1);
  });

  it('still says the deadline passed when no attempt was made', async () => {
    const { client, calls } = failingClient(503);
    const error = await callModel({
      client,
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      stream: false,
      signal: new AbortController().signal,
      deadlineMs: 1_000,
      nowMs: () => 1_000,
      retryBaseMs: 10,
      sleep: async () => true,
      progress: { text: () => undefined, tool: () => undefined },
      idPrefix: 'call_x',
    }).catch((caught: unknown) => caught);
    expect((error as ModelCallError).message).toBe('The turn deadline passed before the model answered.');
    expect(calls()).toBe(0);
  });
});
