import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger, OwnerId } from '@agent-teams/core';
import type { GraphQLError } from 'graphql';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../../auth/authenticator.js';
import type { OperationGuard } from '../operation-guard.js';
import { OwnerSlots } from '../owner-slots.js';
import { closeReason } from './close-reason.js';
import type { LiveConnectionDeps, PrepareDocument } from './connection-deps.js';
import { startKeepAlive } from './keep-alive.js';
import { LiveConnection } from './live-connection.js';
import { LIVE_DEFAULTS, type LiveOptions } from './live-options.js';
import { createOriginPolicy } from './origin-policy.js';
import { CloseCode, SUBPROTOCOL } from './protocol.js';
import { SharedResults } from './shared-results.js';

/** What {@link startLiveServer} is built from. */
export interface LiveServerDeps {
  readonly path: string;
  readonly options?: Partial<LiveOptions>;
  readonly auth: Authenticator;
  readonly prepare: PrepareDocument;
  readonly createContext: (owner: OwnerId) => unknown;
  readonly maskError: (error: unknown) => GraphQLError;
  readonly guard: OperationGuard;
  readonly logger: Logger;
  /** When given, an upgrade it refuses gets 421 (the development server's host check: `loopback-hosts.ts`). */
  readonly hostAllowed?: (request: IncomingMessage) => boolean;
}

/** The running live endpoint. */
export interface LiveServer {
  /** Open sockets (tests, metrics). */
  readonly connections: number;
  /** Groups of subscribers currently sharing results (tests, metrics). */
  readonly sharedGroups: number;
  /** Running operations of `owner` across its sockets (tests, metrics). */
  operationsOf(owner: OwnerId): number;
  /** Closes every socket (1001) and stops accepting upgrades. */
  close(): Promise<void>;
}

/**
 * Serves graphql-transport-ws on the HTTP server's upgrade event at `path`.
 *
 * @remarks The upgrade is refused with 403 before any WebSocket exists when the Origin is not
 * allowed, 400 for another path. Messages above the maximum size close the socket (1009, by `ws`).
 * One timer pings every socket and re-checks its authorization; once a socket is initialised it
 * holds no timer of its own, except the expiry of a host-signed token, which keeps an idle
 * subscribed socket small.
 */
export function startLiveServer(server: Server, deps: LiveServerDeps): LiveServer {
  const options: LiveOptions = { ...LIVE_DEFAULTS, ...deps.options };
  const originAllowed = createOriginPolicy(options.allowedOrigins);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const connections = new Set<LiveConnection>();
  const shared = new SharedResults();
  const ownerCounts = new Map<OwnerId, number>();
  const connectionDeps: LiveConnectionDeps = {
    options,
    shared,
    ownerCounts,
    ownerSockets: new OwnerSlots(options.maxSocketsPerOwner),
    auth: deps.auth,
    prepare: deps.prepare,
    createContext: deps.createContext,
    maskError: deps.maskError,
    guard: deps.guard,
    logger: deps.logger,
  };

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== deps.path) return refuse(socket, 400, 'Bad Request');
    if (deps.hostAllowed && !deps.hostAllowed(request)) return refuse(socket, 421, 'Misdirected Request');
    if (!originAllowed(request.headers.origin, request.headers.host)) return refuse(socket, 403, 'Forbidden');
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (ws.protocol !== SUBPROTOCOL) {
        ws.close(CloseCode.SUBPROTOCOL_NOT_ACCEPTABLE, closeReason('Subprotocol not acceptable'));
        return;
      }
      ws.on('error', () => ws.terminate());
      const connection = new LiveConnection(ws, connectionDeps);
      connections.add(connection);
      ws.once('close', () => connections.delete(connection));
    });
  };
  server.on('upgrade', onUpgrade);
  const stopKeepAlive = startKeepAlive(connections, options.keepAliveMs);

  return {
    get connections() {
      return connections.size;
    },
    get sharedGroups() {
      return shared.size;
    },
    operationsOf: (owner) => ownerCounts.get(owner) ?? 0,
    async close() {
      server.off('upgrade', onUpgrade);
      stopKeepAlive();
      await Promise.all([...connections].map((connection) => connection.shutdown()));
      connections.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Answers an upgrade request with a plain HTTP status and closes the socket. */
function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
