import type { IncomingMessage, RequestListener } from 'node:http';

/** Host names that reach this machine's loopback whatever DNS says (browsers pin `localhost`). */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a `Host` header names the loopback: `localhost` (or a `*.localhost` name, which browsers
 * resolve to the loopback themselves), `127.0.0.1` or `[::1]`, with any port.
 */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return false;
  }
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost');
}

/** What a request naming another host gets: it reached this server through a name not its own. */
const MISDIRECTED = JSON.stringify({
  errors: [
    {
      message:
        'This development server answers only requests addressed to localhost, 127.0.0.1 or [::1]: ' +
        'its token is the well-known development token. Give it a configuration file with tokens of ' +
        'your own to serve other host names.',
      extensions: { code: 'FORBIDDEN_HOST' },
    },
  ],
});

/**
 * Refuses (421 Misdirected Request) every request whose `Host` does not name the loopback.
 *
 * @remarks DNS rebinding: a web page at `http://evil.example:4000` whose name its owner then points
 * at 127.0.0.1 is, for the browser, the same origin as this server, so CORS never applies, and the
 * page could call the API with the well-known development token (`dev-token`), spending the
 * developer's model keys and reading their teams. The name the page used is still in `Host`.
 * Only for a server on the loopback with that token: elsewhere a token of the operator's own is
 * needed, which such a page cannot know, and proxies send their own host names.
 */
export function loopbackHostsOnly(handler: RequestListener): RequestListener {
  return (request, response) => {
    if (isLoopbackHostHeader(request.headers.host)) return handler(request, response);
    response.writeHead(421, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    response.end(MISDIRECTED);
  };
}

/** The upgrade-time twin of {@link loopbackHostsOnly}: true when a WebSocket upgrade may proceed. */
export function upgradeHostAllowed(request: IncomingMessage): boolean {
  return isLoopbackHostHeader(request.headers.host);
}
