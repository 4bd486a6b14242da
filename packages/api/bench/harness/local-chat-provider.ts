import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeChatProvider } from '@agent-teams/testkit/msw';
import { fetchRequestOf } from '../../test/support/chat-provider-server.js';

/** When the provider saw one request and when it finished answering it (the provider's clock). */
export interface ProviderTiming {
  /** The text of the request's last user message (the benchmark puts a sample key in it). */
  readonly lastUser: string;
  readonly receivedAt: number;
  answeredAt: number;
  /** The request body's size in bytes (its `content-length`; NaN without one). */
  readonly bytes: number;
}

/** A fake OpenAI-compatible provider listening on loopback. */
export interface LocalChatProvider {
  /** `<origin>/v1`, an agent's `baseUrl`. */
  readonly baseUrl: string;
  /** Called for every request once its answer was written (the benchmark reads its times). */
  onAnswered: (timing: ProviderTiming) => void;
  close(): Promise<void>;
}

/**
 * Starts testkit's {@link FakeChatProvider} as a real HTTP server on 127.0.0.1: every
 * `POST /v1/chat/completions` is answered at once with `answer` (a function: read for each call;
 * streamed as SSE when the request streams, the real wire format), anything else is 404. `clock` stamps its timings. A model provider is the one part a
 * benchmark cannot run for real, so it is faked at its HTTP boundary, like in the tests.
 */
export async function startLocalChatProvider(
  answer: string | (() => string),
  clock: () => number = () => performance.now(),
): Promise<LocalChatProvider> {
  const answerNow = typeof answer === 'string' ? () => answer : answer;
  const fake = new FakeChatProvider().respondWith(() => ({ kind: 'answer', content: answerNow() }));
  let lastUser = '';
  const provider: LocalChatProvider = {
    baseUrl: '',
    onAnswered: () => {},
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const receivedAt = clock();
    const request = fetchRequestOf(req, origin);
    const response = await fake.handle(request);
    const body = fake.requests.at(-1)?.body;
    const user = body?.messages.filter((message) => message.role === 'user').at(-1);
    lastUser = typeof user?.content === 'string' ? user.content : '';
    // Bodies kept by the fake would grow with every sample: only the last one is read.
    fake.requests.length = 0;
    const timing: ProviderTiming = {
      lastUser,
      receivedAt,
      answeredAt: 0,
      bytes: Number(req.headers['content-length']),
    };
    res.once('finish', () => {
      timing.answeredAt = clock();
      provider.onAnswered(timing);
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(provider, { baseUrl: `${origin}/v1` });
  return provider;
}
