// The end of a streamed answer against a real provider on loopback: the answer is returned at
// `data: [DONE]`, the rest of the body is read to its end in the background, so the connection
// serves the next call, and a response that never ends is cut off after a bounded wait.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { modelCall } from '../../../test/support/model-call.js';
import { callModel } from './chat-call.js';
import { ModelClients } from './model-clients.js';
import type { OpenAiSettings } from './openai-settings.js';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

/** One streamed chunk of an answer, as a provider sends it. */
function chunk(delta: Record<string, unknown>, finish: string | null): string {
  const body = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** Resolves once `done` holds, checking every few milliseconds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/**
 * A streaming provider on loopback: each call gets a two-chunk answer and `[DONE]`, then `after`
 * decides how the response ends. Counts the connections it accepted, and the responses that
 * ended and that were cut off before they ended.
 */
async function provider(after: (res: ServerResponse) => void) {
  const counts = { connections: 0, cut: 0, ended: 0 };
  server = createServer(async (req: IncomingMessage, res) => {
    for await (const _ of req) {
      // The request body is read to its end, as a provider does.
    }
    res.on('close', () => {
      if (res.writableFinished) counts.ended += 1;
      else counts.cut += 1;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Hello ' }, null));
    res.write(chunk({ content: 'back, 日本 🙂.' }, 'stop'));
    res.write('data: [DONE]\n\n');
    after(res);
  });
  server.on('connection', () => {
    counts.connections += 1;
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, counts };
}

function streamedCall(clients: ModelClients, baseUrl: string) {
  const settings = { model: 'm', baseUrl, apiKeyEnv: null, stream: true } as OpenAiSettings;
  return callModel(modelCall(clients.endpoint(settings), { stream: true }));
}

describe('the end of a streamed answer', () => {
  it('reads the body to its end after [DONE], so its connection serves the next calls', async () => {
    // The response ends a few milliseconds after [DONE], in a later packet (as over the internet).
    const { baseUrl, counts } = await provider((res) => setTimeout(() => res.end(), 5));
    const clients = new ModelClients({});
    for (let i = 0; i < 5; i += 1) {
      const answer = await streamedCall(clients, baseUrl);
      expect(answer.content).toBe('Hello back, 日本 🙂.');
      expect(answer.finishReason).toBe('stop');
      // The next call once this response has ended (or been cut off): a later step of a turn.
      await until(() => counts.ended + counts.cut > i);
    }
    // Cancelled at [DONE], every response was cut off, its connection closed, and each call opened
    // a new one. (The pool may open a second connection for the second call, while the first one's
    // end is still being processed; from then on the two serve every call.)
    expect(counts.cut).toBe(0);
    expect(counts.connections).toBeLessThanOrEqual(2);
  });

  it('drops what a provider sends after [DONE]', async () => {
    const { baseUrl, counts } = await provider((res) => res.end(chunk({ content: ' and more' }, null)));
    const answer = await streamedCall(new ModelClients({}), baseUrl);
    expect(answer.content).toBe('Hello back, 日本 🙂.');
    await until(() => counts.ended + counts.cut > 0);
    expect(counts.cut).toBe(0);
  });

  it('answers at once when a provider never ends the response after [DONE], and cuts that response off later', async () => {
    const { baseUrl, counts } = await provider(() => undefined);
    const answer = await streamedCall(new ModelClients({}), baseUrl);
    expect(answer.content).toBe('Hello back, 日本 🙂.');
    // The answer did not wait for the response's end: it is cut off only after the linger.
    expect(counts.cut).toBe(0);
    await until(() => counts.cut > 0);
    expect(counts.cut).toBe(1);
  });
});
