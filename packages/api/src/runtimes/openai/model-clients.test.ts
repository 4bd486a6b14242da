// The model call's HTTP client against a real provider on loopback: the request is sent as it is, and a redirecting provider fails the call at once
// with a message that says so, without sending the conversation anywhere else.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel, ModelCallError } from './chat-call.js';
import { ModelClients } from './model-clients.js';
import type { OpenAiSettings } from './openai-settings.js';

const COMPLETION = {
  id: 'c1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello back.' } }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};

let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

/** What the provider answers to one request. */
interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A provider on loopback: `answer` decides each response; every request's path and body are kept. */
async function provider(answer: (path: string) => Answer) {
  const seen: { path: string; body: string }[] = [];
  server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ path: req.url ?? '', body });
    const { status, headers, body: out } = answer(req.url ?? '');
    res.writeHead(status, headers).end(out);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, seen };
}

function settings(baseUrl: string): OpenAiSettings {
  return {
    model: 'm',
    baseUrl,
    apiKeyEnv: null,
    systemPrompt: null,
    temperature: null,
    maxToolRounds: 4,
    stream: false,
  } as OpenAiSettings;
}

function call(baseUrl: string) {
  return callModel(
    modelCall(new ModelClients({}).endpoint(settings(baseUrl)), {
      body: { model: 'm', messages: [{ role: 'user', content: 'Hi, ünïcode 日本 🙂' }] },
      deadlineMs: Date.now() + 10_000,
    }),
  );
}

describe('the model call over HTTP', () => {
  it('sends the request as it is, refusing redirects, and reads the answer', async () => {
    const { baseUrl, seen } = await provider(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(COMPLETION),
    }));
    const answer = await call(baseUrl);
    expect(answer.content).toBe('Hello back.');
    expect(seen.map((s) => s.path)).toEqual(['/v1/chat/completions']);
    expect(JSON.parse(seen[0]?.body ?? '{}').messages).toEqual([{ role: 'user', content: 'Hi, ünïcode 日本 🙂' }]);
  });

  it('fails a redirecting provider at once, naming the redirect, and follows it nowhere', async () => {
    const { baseUrl, seen } = await provider(
      (path): Answer =>
        path.startsWith('/elsewhere')
          ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(COMPLETION) }
          : { status: 307, headers: { location: '/elsewhere/v1/chat/completions' }, body: '' },
    );
    const error = await call(baseUrl).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).kind).toBe('failed');
    expect((error as ModelCallError).message).toMatch(
      /answered with a redirect \(HTTP .*\), which is not followed.*baseUrl/,
    );
    // One request, not retried, and nothing sent to the redirect's target.
    expect(seen.map((s) => s.path)).toEqual(['/v1/chat/completions']);
  });

  it('names the redirect too when the HTTP boundary is mocked with msw', async () => {
    let calls = 0;
    const mocked = setupServer(
      http.post('http://provider.test/v1/chat/completions', () => {
        calls += 1;
        return new HttpResponse(null, { status: 308, headers: { location: 'http://provider.test/elsewhere' } });
      }),
    );
    mocked.listen({ onUnhandledRequest: 'error' });
    try {
      const error = await call('http://provider.test/v1').catch((caught: unknown) => caught);
      expect((error as ModelCallError).message).toMatch(/answered with a redirect/);
      expect(calls).toBe(1);
    } finally {
      mocked.close();
    }
  });
});
