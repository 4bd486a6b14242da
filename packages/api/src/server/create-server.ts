import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, JobId, OwnerId } from '@agent-teams/core';
import type { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { createSystemClock } from '../adapters/system-clock.js';
import type { EventHub } from '../events/event-hub.js';
import type { KnownMembers } from '../events/known-members.js';
import type { ProgressSource } from '../events/progress-hub.js';
import { requestLogger } from '../observability/log-fields.js';
import { type OpsEndpoints, useOpsEndpoints } from '../observability/use-ops-endpoints.js';
import { packageVersion } from '../package-version.js';
import { type ApiContext, buildSchema, createApiContext } from '../schema/index.js';
import { teamEventViewLoader } from '../schema/team-events.js';
import { useA2aEndpoint } from './a2a/a2a-endpoint.js';
import { bearerToken } from './bearer-token.js';
import { DEFAULT_MAX_BODY_BYTES, limitRequestBodies } from './body-limit.js';
import { corsPolicy, earlyCorsHeaders, useVaryOrigin } from './cors-policy.js';
import type { EdgeDeps, InteropDeps } from './edge-deps.js';
import { graphiqlPage } from './graphiql-page.js';
import type { PrepareDocument } from './live/connection-deps.js';
import type { LiveOptions } from './live/live-options.js';
import { type LiveServer, startLiveServer } from './live/live-server.js';
import { loopbackHostsOnly, upgradeHostAllowed } from './loopback-hosts.js';
import { createMaskError, useHiddenSuggestions } from './mask-error.js';
import { useMcpEndpoint } from './mcp/mcp-endpoint.js';
import { createOperationGuard, takeToken } from './operation-guard.js';
import { RATE_LIMIT_DEFAULTS, RateLimiter, type RateLimitOptions } from './rate-limiter.js';
import { replayCharge } from './replay-charge.js';
import { withRequestIds } from './request-ids.js';
import { useRequestLimits } from './request-limits.js';
import { createGraphqlRunner } from './run-graphql.js';
import { defaultHomePage, useStaticPages } from './static-pages.js';
import { createTeamFeeds } from './team-feed.js';
import { useBodyLimit } from './use-body-limit.js';
import { useOperationGuard } from './use-operation-guard.js';
import { useWidgetBundle, type WidgetBundle } from './widget-assets.js';

/** What {@link createServer} is built from. */
export interface ServerDeps extends EdgeDeps {
  readonly eventHub: EventHub;
  /** The members as local commits noted them, where that is exact (SQLite; decision 0241). */
  readonly knownMembers?: KnownMembers;
  readonly progress: ProgressSource;
  /**
   * The origin clients reach this server at (`https://teams.example`), written into A2A agent
   * cards; default: the origin each request was sent to.
   */
  readonly publicUrl?: string;
  /**
   * Where the development token was printed, said by GraphiQL and the home page (loopback only);
   * no page ever carries a token itself.
   */
  readonly tokenHint?: string;
  /**
   * Answer only requests addressed to a loopback name (`loopback-hosts.ts`): set by `serve` when
   * it runs on the loopback with the well-known development token.
   */
  readonly loopbackHostsOnly?: boolean;
  /** Replaces the default page at `/`. */
  readonly pageHtml?: string;
  /** The built widget, served at `/widget.js` when given. */
  readonly widgetBundle?: WidgetBundle;
  /**
   * Limits of the WebSocket endpoint (defaults: `LIVE_DEFAULTS`, documented in README); its
   * `allowedOrigins` are also the origins CORS allows.
   */
  readonly live?: Partial<LiveOptions>;
  /** Largest request body in bytes on every path (GraphQL, MCP, A2A); larger ones get 413 before parsing (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Per-owner rate limit of HTTP operations, WebSocket subscribes, MCP owner tool calls and A2A
   * requests; null turns it off.
   */
  readonly rateLimit?: RateLimitOptions | null;
  /** The rate limiter's time (default: the system clock). */
  readonly clock?: Clock;
  /** `/metrics` and `/ready` (absent: neither is served). */
  readonly ops?: OpsEndpoints;
}

/** A built server, not yet listening. */
export interface AgentTeamsServer {
  readonly server: Server;
  // biome-ignore lint/suspicious/noExplicitAny: Yoga's server-context type parameter is internal.
  readonly yoga: YogaServerInstance<any, ApiContext>;
  /** Figures of the live endpoint (open sockets, running operations per owner). */
  readonly live: Pick<LiveServer, 'connections' | 'sharedGroups' | 'operationsOf'>;
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
 * without a CDN, the MCP server at `/mcp`, every member as an A2A agent under `/a2a/`, `/health`
 * and the page at `/`.
 *
 * @remarks Everything comes from `deps`, so a test builds a server in one line and talks to it
 * through `yoga.fetch` without a socket.
 */
export function createServer(deps: ServerDeps): AgentTeamsServer {
  const { core, eventHub, progress, auth, memberRunTokens, logger } = deps;
  const rateLimit = deps.rateLimit === undefined ? RATE_LIMIT_DEFAULTS : deps.rateLimit;
  const rateLimiter = rateLimit === null ? null : new RateLimiter(rateLimit, deps.clock ?? createSystemClock());
  const teamFeeds = createTeamFeeds({
    core,
    eventHub,
    loadView: teamEventViewLoader(core, deps.knownMembers),
    chargeReplay: replayCharge(rateLimiter),
  });
  const maskError = createMaskError(logger);
  const maskOne = (error: unknown) => maskError(error, '') as GraphQLError;
  const guard = createOperationGuard({ rateLimiter });
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const graphiql = graphiqlPage('/graphql', deps.tokenHint);
  const interop: InteropDeps = {
    core,
    auth,
    eventHub,
    ...(memberRunTokens ? { memberRunTokens } : {}),
    logger,
    maxBodyBytes,
    version: packageVersion(),
  };
  const yoga = createYoga<InitialContext, ApiContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    // Yoga's built-in health check answers an empty body; ours answers {"status":"ok"} at /health.
    healthCheckEndpoint: '/graphql/yoga-health',
    landingPage: false,
    logging: false,
    // The limit is `maxBodyBytes` on every path: the HTTP edge's (`limitRequestBodies` below),
    // or `useBodyLimit` for a request that did not come through it (see there why not Yoga's).
    maxRequestBodySize: false,
    context: async ({ request }) => {
      const authorization = request.headers.get('authorization');
      // A refused token's line carries the request's id (`requestId`).
      const viewer = (await auth.authenticate(authorization, requestLogger(logger, request.headers)))?.owner ?? null;
      const tokens = memberRunTokens;
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
    maskedErrors: { maskError },
    cors: corsPolicy(deps.live?.allowedOrigins ?? []),
    graphiql: graphiql.graphiql,
    renderGraphiQL: graphiql.renderGraphiQL,
    plugins: [
      useRequestLimits(),
      useHiddenSuggestions(),
      useVaryOrigin(),
      useOperationGuard(guard, maskOne, logger),
      graphiql.plugin,
      useStaticPages(deps.pageHtml ?? defaultHomePage()),
      ...(deps.ops ? [useOpsEndpoints(deps.ops)] : []),
      ...(deps.widgetBundle ? [useWidgetBundle(deps.widgetBundle)] : []),
      useMcpEndpoint({
        ...interop,
        graphql: (viewer, document, variables, log) => runOwnerGraphql(viewer, document, variables, log),
        takeToken: (owner) => takeToken(rateLimiter, owner),
      }),
      useA2aEndpoint({
        ...interop,
        teamFeeds,
        takeToken: (owner) => takeToken(rateLimiter, owner),
        ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      }),
      // Last, as Yoga placed its own: it wraps whichever request parser was chosen before it.
      useBodyLimit(maxBodyBytes),
    ],
  });

  const allowedOrigins = deps.live?.allowedOrigins ?? [];
  const listener = withRequestIds(limitRequestBodies(yoga, maxBodyBytes, earlyCorsHeaders(allowedOrigins)));
  // Node enforces both timeouts below only when it checks its connections, every 30 s by default:
  // a peer trickling its headers was dropped after up to 40 s, not 10 s.
  const server = createHttpServer(
    { connectionsCheckingInterval: HTTP_TIMEOUTS.checkEveryMs },
    deps.loopbackHostsOnly ? loopbackHostsOnly(listener) : listener,
  );
  // A peer that trickles its headers or body is dropped: at most 1 MiB in at most 30 s.
  server.headersTimeout = HTTP_TIMEOUTS.headersMs;
  server.requestTimeout = HTTP_TIMEOUTS.requestMs;
  const createContext = (viewer: OwnerId) => createApiContext({ core, viewer, eventHub, progress, teamFeeds });
  // Parse and validate as HTTP does (Yoga's envelop: its limits and caches), for the WebSocket
  // endpoint and the MCP owner tools, which then execute without an HTTP request.
  const prepare: PrepareDocument = (query) => {
    const { schema, parse, validate } = yoga.getEnveloped({});
    try {
      const document = parse(query);
      const errors = validate(schema, document);
      return errors.length > 0 ? { errors } : { schema, document };
    } catch (error) {
      return { errors: [error as GraphQLError] };
    }
  };
  const runOwnerGraphql = createGraphqlRunner({ prepare, createContext, maskError: maskOne, guard });
  const ws = startLiveServer(server, {
    path: yoga.graphqlEndpoint,
    ...(deps.live ? { options: deps.live } : {}),
    auth,
    prepare,
    createContext,
    maskError: maskOne,
    guard,
    logger,
    ...(deps.loopbackHostsOnly ? { hostAllowed: upgradeHostAllowed } : {}),
  });
  let closing: Promise<void> | null = null;

  return {
    server,
    yoga,
    live: ws,
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

/**
 * How long a client may take to send a request's headers, and the whole request (ms), and how
 * often the server checks its connections against them (so each is kept within a second).
 */
export const HTTP_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 } as const;
