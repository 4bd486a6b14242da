/** Handlers of one subscription. */
export interface SubscriptionSink {
  next(data: Record<string, unknown>): void;
  /**
   * The server refused or the socket dropped; `dropped` tells the caller it may resubscribe.
   * `reauthenticate`: an acknowledged socket was closed with 4403, its token's authority ended
   * (a short-lived host token expired); resubscribing at once opens a socket with a fresh token.
   */
  error(info: { dropped: boolean; code?: string; reauthenticate?: boolean }): void;
  complete(): void;
}

/** A lazily opened graphql-ws connection shared by the widget's subscriptions. */
export interface LiveSocket {
  subscribe(query: string, variables: Record<string, unknown>, sink: SubscriptionSink): () => void;
  /** Closes the socket now; active subscriptions see a dropped error. For tests and "Reconnect". */
  drop(): void;
  /** Called with true when the server acknowledged the connection, false when it closed. */
  onStatus(listener: (up: boolean) => void): () => void;
  dispose(): void;
}

/** The server's close code when a socket's credentials no longer hold (graphql-transport-ws 4403). */
const FORBIDDEN = 4403;

interface Active {
  readonly payload: { query: string; variables: Record<string, unknown> };
  readonly sink: SubscriptionSink;
}

/**
 * A minimal client of the `graphql-transport-ws` protocol (about 1 kB instead of the graphql-ws
 * package): connection_init with the bearer token, subscribe/next/error/complete, ping/pong.
 *
 * @remarks It never reconnects by itself: a drop ends every subscription with `dropped: true`, and
 * the caller resubscribes with its own resume point (`afterSeq`), which is what makes resume exact.
 * Every socket asks `authorization` afresh, so a host's `getToken` can hand out short-lived tokens.
 */
export function createLiveSocket(url: string, authorization: () => Promise<string | null>): LiveSocket {
  let socket: WebSocket | null = null;
  let ready = false;
  let disposed = false;
  let nextId = 1;
  const active = new Map<string, Active>();
  const listeners = new Set<(up: boolean) => void>();
  const notify = (up: boolean) => {
    for (const listener of listeners) listener(up);
  };

  const send = (message: unknown) => socket?.send(JSON.stringify(message));
  const start = (id: string, sub: Active) => send({ id, type: 'subscribe', payload: sub.payload });

  const failAll = (reauthenticate = false) => {
    const subs = [...active.values()];
    active.clear();
    for (const sub of subs) sub.sink.error(reauthenticate ? { dropped: true, reauthenticate } : { dropped: true });
  };

  const open = () => {
    if (socket || disposed) return;
    const ws = new WebSocket(url, 'graphql-transport-ws');
    socket = ws;
    ready = false;
    ws.onopen = async () => {
      const token = await authorization().catch(() => null);
      if (socket !== ws) return;
      send({ type: 'connection_init', payload: token ? { authorization: token } : {} });
    };
    ws.onmessage = (event) => {
      if (socket !== ws) return;
      const message = JSON.parse(String(event.data)) as {
        type: string;
        id?: string;
        payload?: { data?: Record<string, unknown> } & { extensions?: { code?: string } }[];
      };
      if (message.type === 'connection_ack') {
        ready = true;
        // Waiting subscriptions first: a status listener that subscribes on `up` (job progress)
        // then starts its own once, instead of being started again by this loop (4409).
        for (const [id, sub] of active) start(id, sub);
        notify(true);
      } else if (message.type === 'ping') {
        send({ type: 'pong' });
      } else if (message.id !== undefined) {
        const sub = active.get(message.id);
        if (!sub) return;
        if (message.type === 'next') {
          const payload = message.payload as { data?: Record<string, unknown>; errors?: unknown[] };
          if (payload.data) sub.sink.next(payload.data);
          else if (payload.errors) {
            active.delete(message.id);
            sub.sink.error({ dropped: false, code: codeOf(payload.errors) });
          }
        } else if (message.type === 'error') {
          active.delete(message.id);
          sub.sink.error({ dropped: false, code: codeOf(message.payload as unknown[]) });
        } else if (message.type === 'complete') {
          active.delete(message.id);
          sub.sink.complete();
        }
      }
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      // Only after an ack: a 4403 at connection_init means the token itself is refused, and an
      // immediate retry with the same kind of token would loop.
      const expired = ready && event.code === FORBIDDEN;
      socket = null;
      ready = false;
      notify(false);
      failAll(expired);
    };
  };

  return {
    subscribe(query, variables, sink) {
      const id = String(nextId++);
      const sub = { payload: { query, variables }, sink };
      active.set(id, sub);
      if (!socket) open();
      else if (ready) start(id, sub);
      return () => {
        if (active.delete(id) && ready) send({ id, type: 'complete' });
        if (active.size === 0) closeSocket();
      };
    },
    drop() {
      const ws = socket;
      socket = null;
      ready = false;
      ws?.close();
      notify(false);
      failAll();
    },
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      disposed = true;
      active.clear();
      listeners.clear();
      closeSocket();
    },
  };

  function closeSocket() {
    const ws = socket;
    socket = null;
    ready = false;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close();
    }
  }
}

function codeOf(errors: unknown[] | undefined): string {
  const first = errors?.[0] as { extensions?: { code?: string } } | undefined;
  return first?.extensions?.code ?? 'UNEXPECTED';
}
