// An error event as a stream's first event is judged as the status it stands for, in full: the
// 200 answer's `retry-after` is waited as a 429's is, and an event that names a refused key loses
// the team its access as a 401 or 403 does. Against real servers on loopback.
import type { ServerResponse } from 'node:http';
import { JobPhase } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OWNER, openTeamHarness, type TeamHarness, waitFor } from '../../../test/openai/openai-team-harness.js';
import { loopbackOrError } from '../../../test/support/chat-provider-server.js';
import { failure, type LoopbackProvider, startLoopbackProvider } from '../../../test/support/loopback-provider.js';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel } from './chat-call.js';

let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await provider?.close();
  provider = null;
});

/** A 200 stream of one error event (`headers` beside its content type), then the end of the body. */
function errorEvent(res: ServerResponse, error: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
  res.end(`data: ${JSON.stringify({ error })}\n\n`);
}

const ANSWER = [{ choices: [{ index: 0, delta: { content: 'Hello back.' }, finish_reason: 'stop' }] }, '[DONE]'];

function answer(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(ANSWER.map((item) => `data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`).join(''));
}

/** A provider whose `n`-th request (from 1) is answered by `replies[n - 1]`, the last one after that. */
async function scripted(replies: readonly ((res: ServerResponse) => void)[]): Promise<LoopbackProvider> {
  provider = await startLoopbackProvider((_request, res) => {
    replies[Math.min((provider?.seen.length ?? 1) - 1, replies.length - 1)]?.(res);
  });
  return provider;
}

/** `callModel` streamed against `served`, noting its backoff waits in `slept`. */
function streamed(served: LoopbackProvider, slept: number[]) {
  return modelCall(served.endpoint(), {
    stream: true,
    sleep: async (ms) => {
      slept.push(ms);
      return true;
    },
  });
}

describe("a transient error event as a stream's first event", () => {
  for (const [header, value, ms] of [
    ['retry-after', '2', 2_000],
    ['retry-after-ms', '1500', 1_500],
  ] as const) {
    it(`is sent again after what its answer's ${header}: ${value} says, as a 429's`, async () => {
      const overloaded = { type: 'rate_limit_error', message: 'Slow down' };
      const served = await scripted([(res) => errorEvent(res, overloaded, { [header]: value }), answer]);
      const slept: number[] = [];
      expect((await callModel(streamed(served, slept))).content).toBe('Hello back.');
      expect(slept).toEqual([ms]);
      expect(served.seen).toHaveLength(2);
    });
  }
});

describe("an error event naming a refused key as a stream's first event", () => {
  const KEY_WORDS = 'Incorrect API key provided: sk-abc***xyz';
  for (const [error, name] of [
    [{ type: 'invalid_request_error', code: 'invalid_api_key', message: KEY_WORDS }, 'invalid_api_key'],
    [{ type: 'authentication_error', message: KEY_WORDS }, 'authentication_error'],
    [{ type: 'permission_error', message: 'Not allowed' }, 'permission_error'],
    [{ code: 401, message: KEY_WORDS }, '401'],
    [{ status: '403', message: 'Forbidden' }, '403'],
    [{ status: 'UNAUTHENTICATED', message: KEY_WORDS }, 'unauthenticated'],
    ['Unauthorized', 'unauthorized'],
  ] as const) {
    it(`refuses the key as a 401 or 403 does, not retried, without the provider's words: ${JSON.stringify(error)}`, async () => {
      // A retry-after beside it changes nothing: a refused key is not tried again.
      const served = await scripted([(res) => errorEvent(res, error, { 'retry-after': '1' }), answer]);
      const slept: number[] = [];
      const refused = await failure(callModel(streamed(served, slept)));
      expect(refused.kind).toBe('access');
      expect(refused.message).toBe(`The model provider refused the API key (${name} in the stream).`);
      expect(served.seen).toHaveLength(1);
      expect(slept).toEqual([]);
    });
  }

  it('is lost access before it is a busy server, as the status table orders them', async () => {
    const served = await scripted([
      (res) => errorEvent(res, { code: 'invalid_api_key', type: 'server_error' }),
      answer,
    ]);
    const refused = await failure(callModel(streamed(served, [])));
    expect(refused.kind).toBe('access');
  });
});

describe('a team whose stream refuses its key in the first event', () => {
  const server = setupServer();
  let h: TeamHarness | null = null;
  beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
  afterAll(() => server.close());
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  it('is disconnected as on a 401, and continues the same turn after reconnectTeam', async () => {
    const harness = await openTeamHarness();
    h = harness;
    const refusal = { error: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key' } };
    harness.provider.enqueue(
      { kind: 'raw-sse', data: [JSON.stringify(refusal)] },
      { kind: 'answer', content: 'Back online.', usage: { prompt_tokens: 5, completion_tokens: 1 } },
    );
    const { team, lead } = await harness.team();
    const job = await harness.send(team, lead, 'Status?');
    await waitFor(
      async () => (await harness.core.teams.get(OWNER, team.id))?.status === 'DISCONNECTED',
      'the disconnect',
    );
    expect((await harness.job(job.id)).phase).not.toBe(JobPhase.FAILED);
    await harness.core.teams.reconnect(OWNER, team.id);
    harness.scheduler.wake();
    const done = await waitFor(async () => {
      const now = await harness.job(job.id);
      return now.phase === JobPhase.COMPLETED ? now : null;
    }, 'the turn to complete');
    expect(done.result).toMatchObject({ text: 'Back online.' });
    expect(harness.provider.requests).toHaveLength(2);
  });
});
