// The model call's transport against real servers on loopback: what goes out, connections kept,
// a provider that never answers, TLS, a cancel, and how much of an error is read.
import { afterEach, describe, expect, it } from 'vitest';
import {
  COMPLETION,
  failure,
  type LoopbackProvider,
  startLoopbackProvider,
} from '../../../test/support/loopback-provider.js';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel } from './chat-call.js';
import { ModelClients } from './model-clients.js';
import type { OpenAiSettings } from './openai-settings.js';
import { PROVIDER_ERROR_BODY_MAX_BYTES, statusMessage } from './provider-failures.js';
import { ProviderAbortError, ProviderConnectionError, ProviderHttp } from './provider-http.js';

let provider: LoopbackProvider | null = null;
afterEach(async () => {
  await provider?.close();
  provider = null;
});

describe('ProviderHttp', () => {
  it('sends the key, JSON both ways and who calls, and keeps one connection for calls in a row', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
    });
    const settings = { baseUrl: `${provider.baseUrl}//`, apiKeyEnv: 'KEY' } as OpenAiSettings;
    const endpoint = new ModelClients({ KEY: 'sk-test' }).endpoint(settings);
    for (let i = 0; i < 5; i += 1) {
      const answer = await callModel(modelCall(endpoint));
      expect(answer.content).toBe('Hello back.');
    }
    expect(provider.connections()).toBe(1);
    const { method, path, headers, body } = provider.seen[0] ?? { headers: {} };
    expect({ method, path }).toEqual({ method: 'POST', path: '/v1/chat/completions' });
    expect(headers).toMatchObject({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'agent-teams',
      'content-length': String(Buffer.byteLength(body ?? '')),
    });
  });

  it('gives up on a provider whose answer does not begin in time, and retries it within the deadline', async () => {
    provider = await startLoopbackProvider(() => undefined);
    const http = new ProviderHttp();
    const started = Date.now();
    const error = await http
      .post(new URL(`${provider.baseUrl}/chat/completions`), {}, Buffer.from('{}'), new AbortController().signal, 50)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderConnectionError);
    expect((error as Error).message).toBe('Request timed out.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const slept: number[] = [];
    let now = 0;
    const called = callModel(
      modelCall(provider.endpoint(), {
        nowMs: () => now,
        deadlineMs: 200,
        sleep: async (ms) => {
          slept.push(ms);
          now += 150;
          return true;
        },
      }),
    );
    const gaveUp = await failure(called);
    expect(gaveUp.message).toMatch(/kept failing \(connection failed: Request timed out\.\); gave up after 2 attempt/);
    expect(slept).toHaveLength(2);
    http.close();
  });

  it('speaks TLS to an https base URL (a plain-HTTP server fails the handshake, retried as a connection failure)', async () => {
    provider = await startLoopbackProvider((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
    });
    const settings = { baseUrl: provider.baseUrl.replace('http:', 'https:'), apiKeyEnv: null } as OpenAiSettings;
    let now = 0;
    const error = await failure(
      callModel(
        modelCall(new ModelClients({}).endpoint(settings), {
          nowMs: () => now,
          deadlineMs: 60_000,
          sleep: async () => {
            now += 120_000;
            return true;
          },
        }),
      ),
    );
    // The TLS client's complaint about the plain-HTTP answer, and no request reached the server.
    expect(error.message).toMatch(/kept failing \(connection failed: .*(SSL|TLS|wrong version|packet length)/i);
    expect(provider.seen).toHaveLength(0);
  });

  it('drops a request in flight when the run is cancelled, and the provider sees the connection close', async () => {
    let closed = 0;
    provider = await startLoopbackProvider((_request, res) => {
      res.on('close', () => {
        closed += 1;
      });
    });
    const controller = new AbortController();
    const http = new ProviderHttp();
    const sent = http.post(
      new URL(`${provider.baseUrl}/chat/completions`),
      {},
      Buffer.from('{}'),
      controller.signal,
      60_000,
    );
    while (provider.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    controller.abort();
    await expect(sent).rejects.toBeInstanceOf(ProviderAbortError);
    while (closed === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    await expect(
      http.post(new URL(`${provider.baseUrl}/chat/completions`), {}, Buffer.from('{}'), controller.signal, 60_000),
    ).rejects.toBeInstanceOf(ProviderAbortError);
    expect(provider.seen).toHaveLength(1);
    http.close();
  });
});

describe('an error answer', () => {
  it("words the message as the openai client's APIError did", () => {
    expect(statusMessage(400, '{"error":{"message":"bad model"}}')).toBe('400 bad model');
    expect(statusMessage(400, '{"error":{"message":{"why":"x"}}}')).toBe('400 {"why":"x"}');
    expect(statusMessage(400, '{"error":{"code":"E1"}}')).toBe('400 {"code":"E1"}');
    expect(statusMessage(400, '{"detail":"no error field"}')).toBe('400 status code (no body)');
    expect(statusMessage(404, 'Not Found')).toBe('404 Not Found');
    expect(statusMessage(400, '')).toBe('400 status code (no body)');
  });

  // Bytes of an error body read for its message: n − 1, n and n + 1 of them, in characters of
  // 1 (ASCII), 3 (CJK) and 4 (emoji) UTF-8 bytes; a lone surrogate arrives escaped in JSON (ASCII).
  const units = { ASCII: 'a', CJK: '調', emoji: '🙂', 'lone surrogate (escaped)': '\\ud800' };
  for (const [name, unit] of Object.entries(units)) {
    it(`reads at most PROVIDER_ERROR_BODY_MAX_BYTES of it (${name})`, async () => {
      for (const extra of [-1, 0, 1]) {
        const size = PROVIDER_ERROR_BODY_MAX_BYTES + extra;
        const unitBytes = Buffer.byteLength(unit);
        const text = unit.repeat(Math.floor(size / unitBytes)) + 'a'.repeat(size % unitBytes);
        expect(Buffer.byteLength(text)).toBe(size);
        provider = await startLoopbackProvider((_request, res) => res.writeHead(400).end(text));
        const error = await failure(callModel(modelCall(provider.endpoint())));
        const prefix = 'The model provider refused the request (HTTP 400): 400 ';
        expect(error.message.startsWith(prefix)).toBe(true);
        const kept = Buffer.from(error.message.slice(prefix.length));
        if (extra <= 0) expect(kept.toString()).toBe(text);
        else {
          // Cut at the limit: a character the cut split is one replacement character.
          expect(Buffer.from(text).subarray(0, PROVIDER_ERROR_BODY_MAX_BYTES).toString()).toBe(kept.toString());
        }
        await provider.close();
        provider = null;
      }
    });
  }
});
