import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** The `teamEvents` document most live tests subscribe with. */
export const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq team { id } ... on JobChanged { job { id status } } ... on RecordAppended { message { kind text } }
  ... on MemberChanged { member { name status } } } }`;

/** A `teamEvents` entry as tests read it. */
export interface LiveEvent {
  readonly __typename: string;
  readonly seq: number;
  readonly team: { readonly id: string };
  readonly job?: { readonly id: string; readonly status: string };
}

/** Starts `server` on a free loopback port and returns a pool of clients for its live endpoint. */
export async function openLivePool(server: {
  listen(port: number, host: string): Promise<{ url: string }>;
}): Promise<{ pool: ClientPool; url: string; wsUrl: string }> {
  const { url } = await server.listen(0, '127.0.0.1');
  const wsUrl = `${url.replace('http', 'ws')}/graphql`;
  return { pool: new ClientPool(wsUrl), url, wsUrl };
}

/** Creates real graphql-ws clients and disposes them all at the end. */
export class ClientPool {
  readonly #clients: Client[] = [];
  readonly #sockets: WebSocket[] = [];

  constructor(readonly wsUrl: string) {}

  client(token: string, options: { retryAttempts?: number } = {}): Client {
    const created = createClient({
      url: this.wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: options.retryAttempts ?? 0,
      lazy: true,
    });
    this.#clients.push(created);
    return created;
  }

  /** A raw socket speaking the subprotocol, for protocol-level tests. */
  async raw(headers: Record<string, string> = {}): Promise<RawSocket> {
    const socket = new WebSocket(this.wsUrl, 'graphql-transport-ws', { headers });
    this.#sockets.push(socket);
    const raw = new RawSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return raw;
  }

  async dispose(): Promise<void> {
    for (const client of this.#clients) await client.dispose();
    for (const socket of this.#sockets) socket.terminate();
  }
}

/** A protocol message received by a {@link RawSocket}. */
export interface Frame {
  readonly type: string;
  readonly id?: string;
  readonly payload?: unknown;
}

/** A socket that records every frame and its close code. */
export class RawSocket {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.frames.push(JSON.parse(data.toString()) as Frame));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends connection_init with `token` and waits for the ack. */
  async init(token: string): Promise<void> {
    this.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    await this.waitFor((frame) => frame.type === 'connection_ack');
  }

  /** Resolves with the first frame matching `test` (already received or coming), within 20 s. */
  async waitFor(test: (frame: Frame) => boolean, timeoutMs = 20_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(this.frames.slice(-5))}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * Subscribes to `teamEvents` and collects events until `done` says stop; rejects with the
 * errors (as JSON in the message) when the server answers errors.
 */
export async function collectEvents(
  client: Client,
  variables: Record<string, unknown>,
  done: (events: LiveEvent[]) => boolean,
  onStarted?: () => void,
): Promise<LiveEvent[]> {
  const events: LiveEvent[] = [];
  const iterator = client.iterate<{ teamEvents: LiveEvent }>({ query: TEAM_EVENTS, variables });
  const timeout = setTimeout(() => void iterator.return?.(), 15_000);
  try {
    onStarted?.();
    for await (const result of iterator) {
      if (result.errors) throw new Error(JSON.stringify(result.errors));
      if (result.data) events.push(result.data.teamEvents);
      if (done(events)) break;
    }
  } catch (error) {
    if (Array.isArray(error)) throw new Error(JSON.stringify(error));
    throw error;
  } finally {
    clearTimeout(timeout);
  }
  return events;
}

/** The `extensions.code` of the first error inside an error thrown by {@link collectEvents}. */
export function firstCode(error: unknown): unknown {
  const parsed = JSON.parse((error as Error).message) as { extensions?: { code?: unknown } }[];
  return parsed[0]?.extensions?.code;
}

/** Polls `check` every 10 ms until it is true (fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
