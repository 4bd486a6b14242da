import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { FakeChatProvider } from '@agent-teams/testkit/msw';

/** A {@link FakeChatProvider} served over real HTTP on 127.0.0.1. */
export interface ServedChatProvider {
  /** `http://127.0.0.1:<port>/v1`, an agent's `baseUrl`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * Serves `provider` at `<baseUrl>/chat/completions` as a real HTTP server on loopback, so a test
 * sees what the model call does to the connection: a client that drops the request or stops
 * reading aborts the request's signal and cancels the answer's body, which the provider counts
 * (`closedStreams`). (An msw mock of `node:http` does not tell its handler when the client aborts.)
 */
export async function serveChatProvider(provider: FakeChatProvider): Promise<ServedChatProvider> {
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const response = await provider.handle(fetchRequestOf(req, origin, aborted.signal));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    aborted.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        res.write(next.value);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fetch `Request` of an incoming one (its body streamed), aborted with `signal` when given. */
export function fetchRequestOf(req: IncomingMessage, origin: string, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'POST',
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: 'half',
    ...(signal ? { signal } : {}),
  } as RequestInit);
}

/**
 * msw's `onUnhandledRequest` for files that mock some providers and serve others on loopback:
 * a request to 127.0.0.1 goes through to the real server, any other unhandled one is an error.
 */
export function loopbackOrError(request: Request, print: { error(): void }): void {
  if (new URL(request.url).hostname !== '127.0.0.1') print.error();
}
