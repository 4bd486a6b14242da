import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { FakeChatProvider } from '@agent-teams/testkit/msw';

/** A local OpenAI-compatible provider on loopback, answering with testkit's fake in the real wire format. */
export interface LocalProvider {
  readonly fake: FakeChatProvider;
  /** `<origin>/v1`, an agent's `baseUrl`. */
  readonly baseUrl: string;
  /**
   * Holds every request after the first `answered` ones (counted from the start) until the
   * returned function is called, so a turn stays running where the test wants to look at it.
   */
  hold(answered: number): () => void;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const controller = new AbortController();
  req.once('close', () => controller.abort());
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: 'half',
    signal: controller.signal,
  } as RequestInit);
}

/**
 * Starts the provider: `POST /v1/chat/completions` goes to `fake.handle`, anything else is 404.
 * A model provider is the one part the tests cannot reach, so it is faked at its HTTP boundary.
 */
export async function startProvider(): Promise<LocalProvider> {
  const fake = new FakeChatProvider();
  let gate: { from: number; open: Promise<void> } | null = null;
  let received = 0;
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const index = received++;
    if (gate && index >= gate.from) await gate.open;
    const response = await fake.handle(toRequest(req, origin));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    Readable.fromWeb(response.body as never).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    fake,
    baseUrl: `${origin}/v1`,
    hold(answered) {
      let release = () => {};
      const open = new Promise<void>((resolve) => {
        release = () => {
          gate = null;
          resolve();
        };
      });
      gate = { from: answered, open };
      return release;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
