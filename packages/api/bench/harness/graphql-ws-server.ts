import type { Server } from 'node:http';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';

/** How a WebSocket connection authenticates: its `connectionParams.authorization`. */
export type WsAuthorize = (authorization: string | null) => Promise<boolean>;

/** A running graphql-ws endpoint and how to stop it. */
export interface GraphqlWsServer {
  readonly wss: WebSocketServer;
  /** Closes every socket and stops accepting new ones. */
  close(): Promise<void>;
}

/** Executes through the envelop that Yoga prepared for this operation (see `onSubscribe`). */
interface EnvelopedRoot {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/**
 * Serves graphql-ws (subprotocol `graphql-transport-ws`) on an HTTP server's `/graphql` path
 * with the stock graphql-ws `useServer`: one execution per subscriber per event and none of the
 * live socket limits. Production uses `src/server/live/live-server.ts`; the live benchmark
 * measures this reference path beside it.
 *
 * @remarks Operations run through `yoga.getEnveloped` with a request carrying the connection's
 * `authorization`, so the context factory (authentication) and the error masking are exactly
 * those of HTTP; the operation's context then drops that request, as a WebSocket operation has
 * none (the operation guard refuses a subscription whose context carries one). `onConnect`
 * refuses a connection without a known token; graphql-ws then closes the socket with 4403
 * Forbidden.
 */
export function startGraphqlWs(
  server: Server,
  // biome-ignore lint/suspicious/noExplicitAny: the server context type is Yoga's own, not ours.
  yoga: YogaServerInstance<any, any>,
  authorize: WsAuthorize,
): GraphqlWsServer {
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
  const disposable = useServer(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args) as never,
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args) as never,
      onConnect: (ctx) => authorize(authorizationOf(ctx.connectionParams)),
      onSubscribe: async (ctx, _id, params) => {
        const authorization = authorizationOf(ctx.connectionParams);
        const request = new Request('http://localhost/graphql', {
          headers: authorization === null ? {} : { authorization },
        });
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ request, params });
        // The request is there only for the context factory to authenticate: envelop merges it
        // into the context, where the operation guard takes it for an HTTP operation and refuses
        // every subscription (no SSE). This operation came over a WebSocket, so it goes.
        const { request: _authenticated, ...contextValue } = await contextFactory();
        const args: ExecutionArgs = {
          schema,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue,
          rootValue: { execute, subscribe } satisfies EnvelopedRoot,
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wss,
  );
  return {
    wss,
    async close() {
      for (const client of wss.clients) client.terminate();
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** The `authorization` connection parameter, or null. */
function authorizationOf(connectionParams: Readonly<Record<string, unknown>> | undefined): string | null {
  const value = connectionParams?.authorization ?? connectionParams?.Authorization;
  return typeof value === 'string' ? value : null;
}
