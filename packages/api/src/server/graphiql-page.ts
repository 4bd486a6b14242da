import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { StaticAsset } from './static-asset.js';

/** GraphiQL's header editor: where the visitor puts a token (never filled in by the server). */
const TOKEN_PLACEHOLDER = JSON.stringify({ Authorization: 'Bearer <your token>' });

/** What `renderGraphiQL` hands Yoga; the answer is replaced by the (compressed) page in `onResponse`. */
const GRAPHIQL_MARKER = '<!-- agent-teams graphiql -->';

/** GraphiQL's first query: how to authenticate, and on loopback where the token was printed. */
function graphiqlWelcome(tokenHint: string | undefined): string {
  return [
    '# Agent Teams: put your bearer token in the Headers tab below,',
    '# as {"Authorization": "Bearer <your token>"}.',
    ...(tokenHint ? [`# ${tokenHint}`] : []),
    '{ viewer { id teams { edges { node { id name status } } } } }',
    '',
  ].join('\n');
}

/** The parts of Yoga's configuration that serve GraphiQL at `endpoint`. */
export interface GraphiqlPage {
  readonly graphiql: GraphiQLOptions;
  readonly renderGraphiQL: (options: GraphiQLOptions) => Promise<string>;
  /** Answers GraphiQL with the page itself, compressed when the client accepts it. */
  readonly plugin: Plugin;
}

/**
 * GraphiQL without a CDN and without a token: the header editor holds a placeholder the visitor
 * replaces, and `tokenHint` (loopback only) says where the development token was printed.
 *
 * @remarks The inlined GraphiQL bundle is about 9 MB of HTML: it is rendered once and kept as a
 * {@link StaticAsset} (compressed once); Yoga answers with the marker `renderGraphiQL` returned,
 * which the plugin replaces by the page.
 */
export function graphiqlPage(endpoint: string, tokenHint: string | undefined): GraphiqlPage {
  let page: StaticAsset | null = null;
  return {
    graphiql: {
      title: 'Agent Teams GraphiQL',
      subscriptionsProtocol: 'WS',
      headers: TOKEN_PLACEHOLDER,
      defaultHeaders: TOKEN_PLACEHOLDER,
      defaultQuery: graphiqlWelcome(tokenHint),
    },
    renderGraphiQL: async (options) => {
      // Loaded on the first visit, not at start-up: the module is the 9 MB page (start-up time,
      // docs/decisions/0150).
      const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
      page ??= new StaticAsset(renderGraphiQL(options), {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
      });
      return GRAPHIQL_MARKER;
    },
    plugin: {
      onResponse({ request, response, setResponse, fetchAPI }) {
        // Yoga renders the page for a GET (or HEAD) only: a POST never reads the answer's headers.
        if (page === null || (request.method !== 'GET' && request.method !== 'HEAD')) return;
        const html = response.headers.get('content-type')?.startsWith('text/html') === true;
        if (!html || new URL(request.url).pathname !== endpoint) return;
        return page.respond(request, fetchAPI).then(setResponse);
      },
    },
  };
}
