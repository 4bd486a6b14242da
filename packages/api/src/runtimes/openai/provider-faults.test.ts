// Providers that misbehave, against real servers on loopback: cut bodies, endless bodies, a key
// read from a file, retry hints, a kept connection closed under a call, a slow body.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  COMPLETION,
  failure,
  type LoopbackProvider,
  startLoopbackProvider,
} from '../../../test/support/loopback-provider.js';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel, type ModelCallError } from './chat-call.js';
import { ModelClients } from './model-clients.js';
import type { OpenAiSettings } from './openai-settings.js';
import { PROVIDER_ERROR_BODY_MAX_BYTES, statusMessage } from './provider-failures.js';
import { IDLE_SOCKET_MS } from './provider-http.js';

let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await provider?.close();
  provider = null;
});

/** Resolves once `done` holds; fails with `what` after 5 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('a body that breaks off', () => {
  for (const [status, kind, message] of [
    [401, 'access', /refused the API key \(401\)/],
    [400, 'failed', /refused the request \(HTTP 400\): 400 aborted/],
  ] as const) {
    it(`is judged by its status when the answer is an error (${status}), and not retried`, async () => {
      provider = await startLoopbackProvider((_request, res) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"error":');
        setTimeout(() => res.destroy(), 5);
      });
      const error = await failure(callModel(modelCall(provider.endpoint(), { sleep: async () => true })));
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(message);
      expect(provider.seen).toHaveLength(1);
    });
  }

  it('fails a non-streamed answer without sending it again (the provider has billed it)', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write(COMPLETION.slice(0, 20));
      setTimeout(() => res.destroy(), 5);
    });
    const error = await failure(callModel(modelCall(provider.endpoint())));
    expect(error.kind).toBe('failed');
    expect(error.message).toMatch(/^The model provider's answer broke off: /);
    expect(provider.seen).toHaveLength(1);
  });
});

describe('an error body that never ends', () => {
  it('is read to PROVIDER_ERROR_BODY_MAX_BYTES, then the call ends and the connection closes', async () => {
    let closed = false;
    provider = await startLoopbackProvider((_request, res) => {
      res.on('close', () => {
        closed = true;
      });
      res.writeHead(400);
      res.write('x'.repeat(PROVIDER_ERROR_BODY_MAX_BYTES + 10));
      // And nothing more, ever.
    });
    const error = await failure(callModel(modelCall(provider.endpoint())));
    expect(error.message.endsWith('x'.repeat(PROVIDER_ERROR_BODY_MAX_BYTES))).toBe(true);
    await until(() => closed, 'the connection to close');
  });

  it('does not hold a redirect: its body is dropped at once', async () => {
    let closed = false;
    provider = await startLoopbackProvider((_request, res) => {
      res.on('close', () => {
        closed = true;
      });
      res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
      res.write('moved');
    });
    const error = await failure(callModel(modelCall(provider.endpoint())));
    expect(error.message).toMatch(/answered with a redirect/);
    await until(() => closed, 'the connection to close');
  });
});

describe('what a provider says about retrying', () => {
  for (const [header, value, expected] of [
    ['retry-after-ms', '7', 7],
    ['retry-after', '2', 2_000],
    ['retry-after', '0.5', 500],
  ] as const) {
    it(`waits what ${header}: ${value} says`, async () => {
      provider = await startLoopbackProvider((_request, res) => {
        if ((provider?.seen.length ?? 0) === 1) res.writeHead(429, { [header]: value }).end('{}');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
      });
      const slept: number[] = [];
      const answer = await callModel(
        modelCall(provider.endpoint(), {
          sleep: async (ms) => {
            slept.push(ms);
            return true;
          },
        }),
      );
      expect(answer.content).toBe('Hello back.');
      expect(slept).toEqual([expected]);
    });
  }
});

describe('the connection', () => {
  it('sends a call again at once, on a new connection, when its kept one is closed under it', async () => {
    const served = new WeakMap<Socket, number>();
    provider = await startLoopbackProvider((_request, res) => {
      const socket = res.socket as Socket;
      const count = (served.get(socket) ?? 0) + 1;
      served.set(socket, count);
      // The second request on a kept connection finds it closed, as after a provider's idle timeout.
      if (count === 2) socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
    });
    const endpoint = provider.endpoint();
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      return true;
    };
    for (let i = 0; i < 2; i += 1) {
      expect((await callModel(modelCall(endpoint, { sleep }))).content).toBe('Hello back.');
    }
    expect(provider.seen).toHaveLength(3);
    expect(provider.connections()).toBe(2);
    expect(slept).toEqual([]);
  });

  it('reads a body that takes longer than the time the call had left when the answer began', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
      setTimeout(() => res.end(COMPLETION), 150);
    });
    const answer = await callModel(modelCall(provider.endpoint(), { deadlineMs: Date.now() + 60 }));
    expect(answer.content).toBe('Hello back.');
  });

  it('keeps a stream that stays silent longer than an idle connection is kept (a model thinking)', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      const chunk = (content: string, finish: string | null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Thinking… ', null));
      setTimeout(() => res.end(`${chunk('done.', 'stop')}data: [DONE]\n\n`), IDLE_SOCKET_MS + 300);
    });
    const answer = await callModel(modelCall(provider.endpoint(), { stream: true }));
    expect(answer.content).toBe('Thinking… done.');
  }, 15_000);

  it('retries a provider that drops the connection, naming what happened', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.socket?.destroy();
    });
    let now = 0;
    const error = await failure(
      callModel(
        modelCall(provider.endpoint(), {
          nowMs: () => now,
          deadlineMs: 60_000,
          sleep: async () => {
            now += 40_000;
            return true;
          },
        }),
      ),
    );
    expect(error.message).toMatch(/kept failing \(connection failed: socket hang up\); gave up after 2 attempt/);
    expect(provider.seen).toHaveLength(2);
  });
});

describe('the API key', () => {
  it('is trimmed, as fetch trimmed header values (a key read from a file ends with a newline)', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
    });
    const settings = { baseUrl: provider.baseUrl, apiKeyEnv: 'KEY' } as OpenAiSettings;
    const endpoint = new ModelClients({ KEY: ' sk-test\r\n' }).endpoint(settings);
    expect((await callModel(modelCall(endpoint))).content).toBe('Hello back.');
    expect(provider.seen[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  for (const key of ['sk-te\nst', 'sk-日本', 'sk-\u0000']) {
    it(`is refused as lost access, without naming it, when a header cannot carry it (${JSON.stringify(key)})`, () => {
      const settings = { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'KEY' } as OpenAiSettings;
      let error: ModelCallError | null = null;
      try {
        new ModelClients({ KEY: key }).endpoint(settings);
      } catch (caught) {
        error = caught as ModelCallError;
      }
      expect(error?.kind).toBe('access');
      expect(error?.message).toMatch(/KEY holds an API key with characters an HTTP header cannot carry/);
      expect(error?.message).not.toContain(key);
    });
  }
});

it('words a falsy JSON body as the openai client did: its text', () => {
  expect(statusMessage(400, 'null')).toBe('400 null');
  expect(statusMessage(400, '0')).toBe('400 0');
  expect(statusMessage(400, 'false')).toBe('400 false');
  expect(statusMessage(400, '""')).toBe('400 ""');
});
