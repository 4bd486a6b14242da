import type { IncomingMessage } from 'node:http';
import type { CORSOptions, Plugin } from 'graphql-yoga';
import { createOriginPolicy } from './live/origin-policy.js';

/**
 * Request headers a browser page may send: GraphQL's, the request id, and those the official MCP
 * and A2A clients send on `/mcp` and `/a2a/...` (without them in the preflight's answer the
 * browser refused those clients' calls).
 */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'x-request-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
  'a2a-version',
  'a2a-extensions',
];

/** Response headers a page may read: the rate limit's delay, the auth challenge, the request id. */
const EXPOSED_HEADERS = ['retry-after', 'www-authenticate', 'x-request-id', 'mcp-session-id'];

/**
 * CORS for the allowlist the WebSocket Origin check uses (loopback origins, the server's own
 * origin, `--allowed-origins`): an allowed origin gets `Access-Control-Allow-Origin` naming it;
 * any other origin gets no CORS headers, so the browser withholds the answer from that page.
 *
 * @remarks Never `Access-Control-Allow-Credentials`: the API takes bearer tokens in the
 * `Authorization` header, never cookies, so no origin needs it, and Yoga's default (reflect
 * every origin, with credentials) is what let any site call the API with a token it knew. With
 * `*` in the list every origin is allowed, still without credentials.
 */
export function corsPolicy(allowedOrigins: readonly string[]): (request: Request) => CORSOptions | false {
  const allowed = createOriginPolicy(allowedOrigins);
  return (request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !allowed(origin, request.headers.get('host') ?? undefined)) return false;
    return {
      origin: [origin],
      credentials: false,
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    };
  };
}

/**
 * The CORS headers of an answer given before Yoga sees the request (the body limit's 413): without
 * them the browser shows the page a network error instead of the refusal.
 */
export function earlyCorsHeaders(
  allowedOrigins: readonly string[],
): (request: IncomingMessage) => Record<string, string> {
  const allowed = createOriginPolicy(allowedOrigins);
  return (request): Record<string, string> => {
    const origin = request.headers.origin;
    if (origin === undefined) return {};
    if (!allowed(origin, request.headers.host)) return { vary: 'Origin' };
    return {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
      vary: 'Origin',
    };
  };
}

/**
 * `Vary: Origin` on every answer to a request that named an origin: whether it carries CORS
 * headers depends on that origin, so a shared cache must not give one origin's answer to another
 * (Yoga adds it only when it echoes one of several configured origins).
 */
export function useVaryOrigin(): Plugin {
  return {
    onResponse({ request, response }) {
      if (request.headers.get('origin') === null) return;
      const vary = response.headers.get('vary');
      if (vary === null) response.headers.set('vary', 'Origin');
      else if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) response.headers.set('vary', `${vary}, Origin`);
    },
  };
}
