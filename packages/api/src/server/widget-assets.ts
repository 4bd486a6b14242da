import type { Plugin } from 'graphql-yoga';

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

/** Escapes a value for an HTML attribute. */
function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The demo page at `/`: the widget embedded with one script tag, carrying the development token
 * when there is one (otherwise the page asks for a token and keeps it in memory only).
 */
export function widgetDemoPage(devToken: string | null): string {
  const token = devToken ? ` token="${attribute(devToken)}"` : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agent Teams</title>
    <style>body{margin:0;padding:16px;font-family:system-ui,sans-serif}@media (max-width:480px){body{padding:0}}</style>
    <script type="module" src="/widget.js"></script>
  </head>
  <body>
    <agent-teams-widget endpoint="/graphql"${token}></agent-teams-widget>${
      devToken
        ? ''
        : `
    <form id="token-form"><label>Token <input id="token" type="password" autocomplete="off"></label> <button>Use</button></form>
    <script type="module">
      document.getElementById('token-form').addEventListener('submit', (event) => {
        event.preventDefault();
        // Remount with the token (kept in memory only, never in the URL or storage).
        const widget = document.createElement('agent-teams-widget');
        widget.setAttribute('endpoint', '/graphql');
        widget.token = document.getElementById('token').value;
        document.querySelector('agent-teams-widget').replaceWith(widget);
      });
    </script>`
    }
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
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const name = url.pathname.slice(1);
      const chunk = WIDGET_CHUNK.test(name) ? bundle.chunks?.get(name) : undefined;
      if (name !== 'widget.js' && chunk === undefined) return;
      endResponse(
        new fetchAPI.Response(chunk ?? bundle.script, {
          status: 200,
          headers: {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': chunk === undefined ? 'no-cache' : 'public, max-age=31536000, immutable',
          },
        }),
      );
    },
  };
}
