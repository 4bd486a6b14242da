import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelCallError } from '../../src/runtimes/openai/chat-call.js';
import { ModelClients, type ModelEndpoint } from '../../src/runtimes/openai/model-clients.js';
import type { OpenAiSettings } from '../../src/runtimes/openai/openai-settings.js';

/** One request a {@link LoopbackProvider} received, its body read whole. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A model provider played by a real HTTP server on 127.0.0.1 (tests of the model call's HTTP). */
export interface LoopbackProvider {
  /** `http://127.0.0.1:<port>/v1`, an agent's `baseUrl`. */
  readonly baseUrl: string;
  readonly seen: SeenRequest[];
  /** Connections the server accepted. */
  connections(): number;
  /** A fresh endpoint for `baseUrl` (its own connection pool), no key. */
  endpoint(): ModelEndpoint;
  close(): Promise<void>;
}

/** Starts a provider whose every answer `answer` writes (after the request body was read). */
export async function startLoopbackProvider(
  answer: (request: SeenRequest, res: ServerResponse) => void,
): Promise<LoopbackProvider> {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    seen.push(request);
    answer(request, res);
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    seen,
    connections: () => connections,
    endpoint: () =>
      new ModelClients({}).endpoint({ model: 'm', baseUrl, apiKeyEnv: null, stream: false } as OpenAiSettings),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A non-streamed answer whose content is "Hello back.". */
export const COMPLETION = JSON.stringify({
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello back.' } }],
});

/** What a model call that must fail threw (a call that succeeds fails the test). */
export async function failure(call: Promise<unknown>): Promise<ModelCallError> {
  const outcome = await call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: unknown) => error,
  );
  return outcome as ModelCallError;
}
