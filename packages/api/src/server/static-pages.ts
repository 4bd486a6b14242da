import type { Plugin } from 'graphql-yoga';
import { StaticAsset } from './static-asset.js';

/** Escapes text for HTML. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The minimal page served at `/` when the widget is not built. It never carries a token: on
 * loopback it may say where the development token was printed (`tokenHint`).
 */
export function defaultHomePage(tokenHint: string | null = null): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agent Teams</title>
  </head>
  <body>
    <main>
      <h1>Agent Teams</h1>
      <p>The GraphQL API is served at <a href="/graphql">/graphql</a>. Open it in a browser for GraphiQL
        and put your bearer token in its Headers tab.${tokenHint === null ? '' : ` ${escapeHtml(tokenHint)}`}</p>
      <p>From a terminal:</p>
      <pre><code>curl -s http://127.0.0.1:4000/graphql \\
  -H 'Content-Type: application/json' \\
  -H 'Authorization: Bearer &lt;token&gt;' \\
  -d '{"query":"{ viewer { id teams { edges { node { id name status } } } } }"}'</code></pre>
      <p>Subscriptions use graphql-ws (subprotocol <code>graphql-transport-ws</code>) on the same path.
        Health check: <a href="/health">/health</a>.</p>
    </main>
  </body>
</html>
`;
}

/**
 * A Yoga plugin answering `GET /health` (`{"status":"ok"}`) and `GET /` (the home page), so they
 * work the same through `yoga.fetch` in tests and through the real HTTP server.
 */
export function useStaticPages(pageHtml: string): Plugin {
  const page = new StaticAsset(pageHtml, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === '/health') {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ status: 'ok' }), {
            status: 200,
            headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
          }),
        );
      } else if (url.pathname === '/') {
        return page.respond(request, fetchAPI).then(endResponse);
      }
    },
  };
}
