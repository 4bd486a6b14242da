import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Core, JobId, Logger, OwnerId } from '@agent-teams/core';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { MemberRunTokens } from '../adapters/member-run-tokens.js';
import { createSystemClock } from '../adapters/system-clock.js';
import { type ApiContext, buildSchema, createApiContext } from '../schema/index.js';
import { loadTeamEventView } from '../schema/team-events.js';
import { DEFAULT_MAX_BODY_BYTES, limitRequestBodies } from './body-limit.js';
import { corsPolicy } from './cors-policy.js';
import type { EventHub } from './event-hub.js';
import { authorizationOf, startGraphqlWs } from './graphql-ws-server.js';
import type { LiveOptions } from './live/live-options.js';
import { type LiveServer, startLiveServer } from './live/live-server.js';
import { createMaskError } from './mask-error.js';
import { createOperationGuard } from './operation-guard.js';
import type { ProgressSource } from './progress-source.js';
import { RATE_LIMIT_DEFAULTS, RateLimiter, type RateLimitOptions } from './rate-limiter.js';
import { useRequestLimits } from './request-limits.js';
import { StaticAsset } from './static-asset.js';
import { defaultHomePage, useStaticPages } from './static-pages.js';
import { createTeamFeeds } from './team-feed.js';
import { useOperationGuard } from './use-operation-guard.js';
import { useWidgetBundle, type WidgetBundle } from './widget-assets.js';

/** What {@link createServer} is built from. */
export interface ServerDeps {
  readonly core: Core;
  /** Resolves an `Authorization` value (`Bearer <token>`) to its owner, or null. */
  readonly authenticate: (authorization: string | null) => OwnerId | null;
  /** Resolves member-run tokens (`invokeTeamTool`); without it that mutation is refused. */
  readonly memberRunTokens?: Pick<MemberRunTokens, 'jobOf'>;
  readonly eventHub: EventHub;
  readonly progress: ProgressSource;
  readonly logger: Logger;
  /**
   * Where the development token was printed, said by GraphiQL and the home page (loopback only);
   * no page ever carries a token itself.
   */
  readonly tokenHint?: string;
  /** Replaces the default page at `/`. */
  readonly pageHtml?: string;
  /** The built widget, served at `/widget.js` when given. */
  readonly widgetBundle?: WidgetBundle;
  /**
   * Limits of the WebSocket endpoint (defaults: `LIVE_DEFAULTS`, documented in README); its
   * `allowedOrigins` are also the origins CORS allows.
   */
  readonly live?: Partial<LiveOptions>;
  /** Largest request body in bytes; larger ones get 413 before parsing (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Per-owner rate limit of HTTP operations and WebSocket subscribes; null turns it off. */
  readonly rateLimit?: RateLimitOptions | null;
  /** The rate limiter's time (default: the system clock). */
  readonly clock?: Clock;
  /**
   * `shared` (default): our graphql-transport-ws server with shared fan-out and socket limits.
   * `graphql-ws`: the stock graphql-ws `useServer` path, kept only so the bench can compare.
   */
  readonly wsEngine?: 'shared' | 'graphql-ws';
}

/** A built server, not yet listening. */
export interface AgentTeamsServer {
  readonly server: Server;
  // biome-ignore lint/suspicious/noExplicitAny: Yoga's server-context type parameter is internal.
  readonly yoga: YogaServerInstance<any, ApiContext>;
  /** Figures of the live endpoint (open sockets, running operations per owner); null for the graphql-ws engine. */
  readonly live: Pick<LiveServer, 'connections' | 'sharedGroups' | 'operationsOf'> | null;
  /** Starts listening (port 0 picks a free one); resolves with the base URL. */
  listen(port: number, host: string): Promise<{ url: string }>;
  /** Stops accepting, closes every HTTP and WebSocket connection, and resolves. */
  close(): Promise<void>;
}

/** Initial context Yoga hands the context factory (HTTP request, or graphql-ws connection). */
interface InitialContext {
  readonly request?: Request;
  readonly connectionParams?: Readonly<Record<string, unknown>>;
}

/**
 * Builds the HTTP + WebSocket server: GraphQL (Yoga) and graphql-ws at `/graphql`, GraphiQL
 * without a CDN, `/health` and the page at `/`.
 *
 * @remarks Everything comes from `deps`, so a test builds a server in one line and talks to it
 * through `yoga.fetch` without a socket.
 */
export function createServer(deps: ServerDeps): AgentTeamsServer {
  const { core, eventHub, progress } = deps;
  const teamFeeds = createTeamFeeds({ core, eventHub, loadView: (event) => loadTeamEventView(core, event) });
  const maskError = createMaskError(deps.logger);
  const maskOne = (error: unknown) => maskError(error, '') as GraphQLError;
  const rateLimit = deps.rateLimit === undefined ? RATE_LIMIT_DEFAULTS : deps.rateLimit;
  const guard = createOperationGuard({
    rateLimiter: rateLimit === null ? null : new RateLimiter(rateLimit, deps.clock ?? createSystemClock()),
  });
  let graphiql: StaticAsset | null = null;
  const yoga = createYoga<InitialContext, ApiContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    // Yoga's built-in health check answers an empty body; ours answers {"status":"ok"} at /health.
    healthCheckEndpoint: '/graphql/yoga-health',
    landingPage: false,
    logging: false,
    context: ({ request, connectionParams }) => {
      const authorization = connectionParams
        ? authorizationOf(connectionParams)
        : (request?.headers.get('authorization') ?? null);
      const viewer = deps.authenticate(authorization);
      const tokens = deps.memberRunTokens;
      // Only HTTP requests carry member-run tokens (invokeTeamTool); resolved lazily, once.
      let memberRun: Promise<JobId | null> | undefined;
      const runOf = () => {
        memberRun ??=
          viewer === null && tokens ? tokens.jobOf(bearerToken(authorization) ?? '') : Promise.resolve(null);
        return memberRun;
      };
      return createApiContext({
        core,
        viewer,
        eventHub,
        progress,
        teamFeeds,
        ...(tokens && !connectionParams ? { memberRun: runOf } : {}),
      });
    },
    maskedErrors: { maskError },
    cors: corsPolicy(deps.live?.allowedOrigins ?? []),
    graphiql: {
      title: 'Agent Teams GraphiQL',
      subscriptionsProtocol: 'WS',
      // No token in the page, ever: the header editor holds a placeholder the visitor replaces.
      headers: TOKEN_PLACEHOLDER,
      defaultHeaders: TOKEN_PLACEHOLDER,
      defaultQuery: graphiqlWelcome(deps.tokenHint),
    },
    // The inlined GraphiQL bundle is about 9 MB of HTML: render it once (and compress it once).
    renderGraphiQL: (options) => {
      graphiql ??= new StaticAsset(renderGraphiQL(options), {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
      });
      return GRAPHIQL_MARKER;
    },
    plugins: [
      useRequestLimits(),
      useOperationGuard(guard, maskOne),
      {
        // Yoga answers GraphiQL with what `renderGraphiQL` returned; the page itself, compressed.
        onResponse({ request, response, setResponse, fetchAPI }) {
          const html = response.headers.get('content-type')?.startsWith('text/html') === true;
          if (graphiql === null || !html || new URL(request.url).pathname !== '/graphql') return;
          return graphiql.respond(request, fetchAPI).then(setResponse);
        },
      },
      useStaticPages(deps.pageHtml ?? defaultHomePage()),
      ...(deps.widgetBundle ? [useWidgetBundle(deps.widgetBundle)] : []),
    ],
  });

  const server = createHttpServer(limitRequestBodies(yoga, deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  // A peer that trickles its headers or body is dropped: at most 1 MiB in at most 30 s.
  server.headersTimeout = HTTP_TIMEOUTS.headersMs;
  server.requestTimeout = HTTP_TIMEOUTS.requestMs;
  const ws =
    deps.wsEngine === 'graphql-ws'
      ? startGraphqlWs(server, yoga, (authorization) => deps.authenticate(authorization) !== null)
      : startLiveServer(server, {
          path: yoga.graphqlEndpoint,
          ...(deps.live ? { options: deps.live } : {}),
          authenticate: deps.authenticate,
          prepare: (query) => {
            const { schema, parse, validate } = yoga.getEnveloped({});
            try {
              const document = parse(query);
              const errors = validate(schema, document);
              return errors.length > 0 ? { errors } : { schema, document };
            } catch (error) {
              return { errors: [error as GraphQLError] };
            }
          },
          createContext: (viewer) => createApiContext({ core, viewer, eventHub, progress, teamFeeds }),
          maskError: maskOne,
          guard,
          logger: deps.logger,
        });
  let closing: Promise<void> | null = null;

  return {
    server,
    yoga,
    live: 'operationsOf' in ws ? ws : null,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({ url: `http://${shownHost}:${address.port}` });
        });
      }),
    close: () => {
      closing ??= (async () => {
        const stopped = server.listening
          ? new Promise<void>((resolve) => server.close(() => resolve()))
          : Promise.resolve();
        await ws.close();
        server.closeAllConnections();
        await stopped;
        await yoga.dispose();
      })();
      return closing;
    },
  };
}

/** How long a client may take to send a request's headers, and the whole request (ms). */
export const HTTP_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000 } as const;

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

/** The token of a `Bearer <token>` authorization value, or null. */
function bearerToken(authorization: string | null): string | null {
  const match = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}
