// A provider's `error` event as a stream's first event is judged as the status it stands for
// (retried when transient, within the turn deadline), and each attempt the provider billed is
// handed to `ModelCall.spent` once: against real servers on loopback.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { failure, type LoopbackProvider, startLoopbackProvider } from '../../../test/support/loopback-provider.js';
import { modelCall } from '../../../test/support/model-call.js';
import { type CutShortCall, callModel } from './chat-call.js';

let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await provider?.close();
  provider = null;
});

/** A stream of these `data:` payloads, then the end of the body. */
function stream(res: ServerResponse, data: readonly unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(data.map((item) => `data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`).join(''));
}

/** One streamed chunk carrying `content`, finished with `finish` when given. */
function chunk(content: string, finish: string | null = null): object {
  return { choices: [{ index: 0, delta: { content }, finish_reason: finish }] };
}

const ANSWER = [chunk('Hello ', null), chunk('back.', 'stop'), '[DONE]'];

/** A provider whose `n`-th request (from 1) is answered by `replies[n - 1]`, the last one after that. */
async function scripted(replies: readonly ((res: ServerResponse) => void)[]): Promise<LoopbackProvider> {
  provider = await startLoopbackProvider((_request, res) => {
    const reply = replies[Math.min((provider?.seen.length ?? 1) - 1, replies.length - 1)];
    reply?.(res);
  });
  return provider;
}

/** `callModel` streamed against `served`, noting the backoff waits and the spend it hands over. */
function streamed(served: LoopbackProvider, spent: CutShortCall[], slept: number[] = []) {
  return modelCall(served.endpoint(), {
    stream: true,
    sleep: async (ms) => {
      slept.push(ms);
      return true;
    },
    spent: async (cut) => {
      spent.push(cut);
    },
  });
}

describe('an error event as the first event of a stream', () => {
  for (const error of [
    { type: 'overloaded_error', message: 'Overloaded' },
    { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached' },
    { type: 'server_error', code: null, message: 'The server had an error' },
    { code: 503, message: 'Service unavailable' },
    { code: '429', message: 'Too many requests' },
    'overloaded',
  ]) {
    it(`is retried like a 429 or 5xx, and costs nothing without a report: ${JSON.stringify(error)}`, async () => {
      const served = await scripted([(res) => stream(res, [{ error }]), (res) => stream(res, ANSWER)]);
      const spent: CutShortCall[] = [];
      const slept: number[] = [];
      const answer = await callModel(streamed(served, spent, slept));
      expect(answer.content).toBe('Hello back.');
      expect(served.seen).toHaveLength(2);
      expect(slept).toHaveLength(1);
      expect(spent).toEqual([]);
    });
  }

  it('gives up like a status when it outlasts the turn deadline', async () => {
    const served = await scripted([
      (res) => stream(res, [{ error: { type: 'overloaded_error', message: 'Overloaded' } }]),
    ]);
    let now = 0;
    const call = streamed(served, []);
    const error = await failure(
      callModel({
        ...call,
        nowMs: () => now,
        deadlineMs: 60_000,
        sleep: async () => {
          now += 40_000;
          return true;
        },
      }),
    );
    expect(error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(error.message).toMatch(/kept failing \(error event: Overloaded\); gave up after 2 attempt/);
    expect(served.seen).toHaveLength(2);
  });

  it("fails at once when it is permanent, and hands the provider's report of it over", async () => {
    const usage = { prompt_tokens: 12, completion_tokens: 0 };
    const served = await scripted([
      (res) => stream(res, [{ error: { type: 'invalid_request_error', message: 'Bad tools' }, usage }]),
    ]);
    const spent: CutShortCall[] = [];
    const error = await failure(callModel(streamed(served, spent)));
    expect(error.kind).toBe('failed');
    expect(error.message).toBe('The model provider reported an error in the stream: Bad tools');
    expect(served.seen).toHaveLength(1);
    expect(spent).toEqual([{ outputBytes: 0, usage: { inputTokens: 12, cachedInputTokens: 0, outputTokens: 0 } }]);
  });
});

describe('the spend of attempts that got no answer', () => {
  it('is handed over once per billed attempt: a reported refusal and a cut answer, not a bare one or a dropped connection', async () => {
    const report = JSON.stringify({ error: { message: 'busy' }, usage: { prompt_tokens: 30, completion_tokens: 0 } });
    const served = await scripted([
      (res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}'),
      (res) => res.socket?.destroy(),
      (res) => res.writeHead(429, { 'content-type': 'application/json' }).end(report),
      (res) => stream(res, [{ error: { type: 'server_error', message: 'try again' } }]),
      (res) => {
        // An answer that began, then the connection broke: never sent again.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk('Half an ans'))}\n\n`);
        setTimeout(() => res.socket?.destroy(), 20);
      },
    ]);
    const spent: CutShortCall[] = [];
    const error = await failure(callModel(streamed(served, spent)));
    expect(error.message).toMatch(/^The model provider's stream broke off: /);
    expect(served.seen).toHaveLength(5);
    expect(spent).toEqual([
      { outputBytes: 0, usage: { inputTokens: 30, cachedInputTokens: 0, outputTokens: 0 } },
      { outputBytes: 11, usage: null },
    ]);
  });

  it('counts an error event after a chunk as the end of an answer that began: not retried, its bytes handed over', async () => {
    const served = await scripted([
      (res) => stream(res, [chunk('Half'), { error: { type: 'overloaded_error', message: 'Overloaded' } }]),
    ]);
    const spent: CutShortCall[] = [];
    const error = await failure(callModel(streamed(served, spent)));
    expect(error.message).toBe('The model provider reported an error in the stream: Overloaded');
    expect(served.seen).toHaveLength(1);
    expect(spent).toEqual([{ outputBytes: 4, usage: null }]);
  });
});
