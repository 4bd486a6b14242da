import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';

/** A host's key-set endpoint on loopback: what it serves can change, and it counts requests. */
export interface JwksServer {
  readonly url: URL;
  /** GET requests answered so far. */
  readonly requests: () => number;
  /** Replaces the keys served from now on. */
  setKeys(keys: readonly JWK[]): void;
  /**
   * Replaces the whole answer: a raw body, or `hang` to never answer. `chunked` leaves out the
   * content-length, so only the bytes themselves show the size.
   */
  setBody(body: string | 'hang', opts?: { readonly chunked?: boolean }): void;
  close(): Promise<void>;
}

/** Starts a real `node:http` server answering the JSON Web Key Set at `/.well-known/jwks.json`. */
export async function startJwksServer(keys: readonly JWK[]): Promise<JwksServer> {
  let body: string | 'hang' = JSON.stringify({ keys });
  let chunked = false;
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    if (body === 'hang') return;
    response.writeHead(200, { 'content-type': 'application/jwk-set+json' });
    if (chunked) response.write(body);
    response.end(chunked ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`),
    requests: () => requests,
    setKeys: (next) => {
      body = JSON.stringify({ keys: next });
      chunked = false;
    },
    setBody: (next, opts) => {
      body = next;
      chunked = opts?.chunked ?? false;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
