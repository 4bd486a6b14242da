import type { CORSOptions } from 'graphql-yoga';
import { createOriginPolicy } from './live/origin-policy.js';

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
      allowedHeaders: ['authorization', 'content-type', 'accept'],
      maxAge: 600,
    };
  };
}
