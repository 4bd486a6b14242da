import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Core, JobId, Logger, OwnerId } from '@agent-teams/core';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { MemberRunTokens } from '../adapters/member-run-tokens.js';
import type { EventHub } from '../events/event-hub.js';
import type { ProgressSource } from '../events/progress-hub.js';
import { type ApiContext, buildSchema, createApiContext } from '../schema/index.js';
import { loadTeamEventView } from '../schema/team-events.js';
import type { LiveOptions } from './live/live-options.js';
import { startLiveServer } from './live/live-server.js';
import { createMaskError } from './mask-error.js';
import { useRequestLimits } from './request-limits.js';
import { defaultHomePage, useStaticPages } from './static-pages.js';
import { createTeamFeeds } from './team-feed.js';
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
  /** Pre-filled in GraphiQL's `Authorization` header when given. */
  readonly devToken?: string;
  /** Replaces the default page at `/`. */
  readonly pageHtml?: string;
  /** The built widget, served at `/widget.js` when given. */
  readonly widgetBundle?: WidgetBundle;
  /** Limits of the WebSocket endpoint (defaults: `LIVE_DEFAULTS`, documented in README). */
  readonly live?: Partial<LiveOptions>;
}

/** A built server, not yet listening. */
export interface AgentTeamsServer {
  readonly server: Server;
  // biome-ignore lint/suspicious/noExplicitAny: Yoga's server-context type parameter is internal.
  readonly yoga: YogaServerInstance<any, ApiContext>;
  /** Starts listening (port 0 picks a free one); resolves with the base URL. */
  listen(port: number, host: string): Promise<{ url: string }>;
  /** Stops accepting, closes every HTTP and WebSocket connection, and resolves. */
  close(): Promise<void>;
}

/** Initial context Yoga hands the context factory: the HTTP request. */
interface InitialContext {
  readonly request: Request;
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
  let graphiqlHtml: string | null = null;
  const yoga = createYoga<InitialContext, ApiContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    // Yoga's built-in health check answers an empty body; ours answers {"status":"ok"} at /health.
    healthCheckEndpoint: '/graphql/yoga-health',
    landingPage: false,
    logging: false,
    context: ({ request }) => {
      const authorization = request.headers.get('authorization');
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
        ...(tokens ? { memberRun: runOf } : {}),
      });
    },
    maskedErrors: { maskError: createMaskError(deps.logger) },
    graphiql: {
      title: 'Agent Teams GraphiQL',
      subscriptionsProtocol: 'WS',
      // Pre-filled both in the header editor and in every new tab, so a first query just works.
      ...(deps.devToken ? { headers: devHeaders(deps.devToken), defaultHeaders: devHeaders(deps.devToken) } : {}),
    },
    // The inlined GraphiQL bundle is about 9 MB of HTML: render it once, not per request.
    renderGraphiQL: (options) => {
      graphiqlHtml ??= renderGraphiQL(options);
      return graphiqlHtml;
    },
    plugins: [
      useRequestLimits(),
      useStaticPages(deps.pageHtml ?? defaultHomePage()),
      ...(deps.widgetBundle ? [useWidgetBundle(deps.widgetBundle)] : []),
    ],
  });

  const server = createHttpServer(yoga);
  const maskError = createMaskError(deps.logger);
  const ws = startLiveServer(server, {
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
    maskError: (error) => maskError(error, '') as GraphQLError,
    logger: deps.logger,
  });
  let closing: Promise<void> | null = null;

  return {
    server,
    yoga,
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

/** GraphiQL's headers JSON carrying the development token. */
function devHeaders(token: string): string {
  return JSON.stringify({ Authorization: `Bearer ${token}` });
}

/** The token of a `Bearer <token>` authorization value, or null. */
function bearerToken(authorization: string | null): string | null {
  const match = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}
