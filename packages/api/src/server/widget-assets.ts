import type { Plugin } from 'graphql-yoga';
import { StaticAsset } from './static-asset.js';
import { escapeHtml } from './static-pages.js';

/** The built widget bundle the server hands out at `/widget.js`. */
export interface WidgetBundle {
  /** The ES module (`packages/widget/dist/widget.js`), which defines the element when loaded. */
  readonly script: string;
  /**
   * The chunks the module loads on demand (`widget-<name>-<hash>.js` beside it), by file name,
   * served at `/<file name>`.
   */
  readonly chunks?: ReadonlyMap<string, string>;
}

/** File names of the widget's on-demand chunks. */
export const WIDGET_CHUNK = /^widget-[\w-]+\.js$/;

/**
 * The demo page at `/`: the widget embedded with one script tag, once the visitor gave a token.
 *
 * @remarks The page never carries a token, whoever asks for it: it asks for one in a form, or
 * takes it from the URL fragment (`/#token=…`, never sent to the server, removed from the
 * address bar at once) so a script or a bookmark can open it ready. The token stays in memory
 * only. `tokenHint` (loopback only) says where the development token was printed.
 */
export function widgetDemoPage(tokenHint: string | null = null): string {
  const hint = tokenHint === null ? '' : ` <small>${escapeHtml(tokenHint)}</small>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agent Teams</title>
    <style>body{margin:0;padding:16px;font-family:system-ui,sans-serif}@media (max-width:480px){body{padding:0}}form{margin-bottom:12px}</style>
    <script type="module" src="/widget.js"></script>
  </head>
  <body>
    <form id="token-form"><label>Token <input id="token" type="password" autocomplete="off"></label> <button>Use</button>${hint}</form>
    <div id="widget-host"></div>
    <script type="module">
      const host = document.getElementById('widget-host');
      const use = (token) => {
        const widget = document.createElement('agent-teams-widget');
        widget.setAttribute('endpoint', '/graphql');
        widget.token = token;
        host.replaceChildren(widget);
      };
      document.getElementById('token-form').addEventListener('submit', (event) => {
        event.preventDefault();
        const token = document.getElementById('token').value.trim();
        if (token !== '') use(token);
      });
      const fromFragment = new URLSearchParams(location.hash.slice(1)).get('token');
      if (fromFragment) {
        history.replaceState(null, '', location.pathname + location.search);
        use(fromFragment);
      }
    </script>
  </body>
</html>
`;
}

/**
 * A Yoga plugin answering `GET /widget.js` with the bundle and `GET /widget-<name>-<hash>.js` with
 * its chunks (so it also works through `yoga.fetch`). A chunk's name changes with its content,
 * so it may be cached for good; `widget.js` is revalidated.
 */
export function useWidgetBundle(bundle: WidgetBundle): Plugin {
  const script = new StaticAsset(bundle.script, {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'no-cache',
  });
  const chunks = new Map(
    [...(bundle.chunks ?? [])].map(([name, code]) => [
      name,
      new StaticAsset(code, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=31536000, immutable',
      }),
    ]),
  );
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const name = url.pathname.slice(1);
      const asset = name === 'widget.js' ? script : WIDGET_CHUNK.test(name) ? chunks.get(name) : undefined;
      if (asset === undefined) return;
      return asset.respond(request, fetchAPI).then(endResponse);
    },
  };
}
