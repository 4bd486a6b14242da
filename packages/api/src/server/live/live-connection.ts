import type { Logger, OwnerId } from '@agent-teams/core';
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
} from 'graphql';
import type { WebSocket } from 'ws';
import type { LiveOptions } from './live-options.js';
import {
  type ClientMessage,
  CloseCode,
  completeFrame,
  errorFrame,
  nextFrame,
  parseClientMessage,
  type SubscribePayload,
} from './protocol.js';
import { shareKey } from './share-key.js';
import type { SharedResults } from './shared-results.js';

/** Parses and validates a document exactly as HTTP does (Yoga's envelop, request limits included). */
export type PrepareDocument = (
  query: string,
) => { readonly schema: GraphQLSchema; readonly document: DocumentNode } | { readonly errors: readonly GraphQLError[] };

/** What every connection shares: server-wide state and the ways to authenticate and execute. */
export interface LiveConnectionDeps {
  readonly options: LiveOptions;
  readonly shared: SharedResults;
  /** Running operations per owner, across sockets. */
  readonly ownerCounts: Map<OwnerId, number>;
  readonly authenticate: (authorization: string | null) => OwnerId | null;
  readonly prepare: PrepareDocument;
  /** A fresh resolver context for `owner` (new loaders: current state). */
  readonly createContext: (owner: OwnerId) => unknown;
  /** The one error mapping of the server (DomainError → extensions.code, others masked). */
  readonly maskError: (error: unknown) => GraphQLError;
  readonly logger: Logger;
}

/** A running operation of a socket. */
interface Running {
  cancelled: boolean;
  iterator: AsyncIterator<unknown> | null;
}

/**
 * One graphql-transport-ws connection: init and authentication, operations, limits, and the
 * shared delivery of subscription results.
 *
 * @remarks Authorization is re-checked at every delivery (the token may have been revoked since
 * the socket opened) and at every keep-alive tick; a failed check closes the socket with 4403, so
 * nothing more reaches it.
 */
export class LiveConnection {
  readonly #socket: WebSocket;
  readonly #deps: LiveConnectionDeps;
  #authorization: string | null = null;
  #owner: OwnerId | null = null;
  #initTimer: NodeJS.Timeout | null;
  #running: Map<string, Running> | null = null;
  #closed = false;
  #corked = false;
  /** Cleared by every ping, set by the pong: a socket still unanswered at the next tick is dead. */
  alive = true;

  constructor(socket: WebSocket, deps: LiveConnectionDeps) {
    this.#socket = socket;
    this.#deps = deps;
    this.#initTimer = setTimeout(
      () => this.close(CloseCode.INIT_TIMEOUT, 'Connection initialisation timeout'),
      deps.options.initTimeoutMs,
    );
    socket.on('message', (data, isBinary) => this.#onMessage(isBinary ? null : data.toString()));
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.once('close', () => this.#dispose());
  }

  /** Keep-alive tick: drops a socket that missed the last ping, re-checks authorization, pings. */
  tick(): void {
    // A closing socket (e.g. a slow consumer draining toward its 4100) is left to ws's close timeout.
    if (this.#closed) return;
    if (!this.alive) {
      this.#socket.terminate();
      return;
    }
    if (this.#owner !== null && !this.#authorized()) return;
    this.alive = false;
    this.#socket.ping();
  }

  /** Closes with 1001 for a shutdown; resolves when the socket closed (terminated after 1 s). */
  shutdown(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.readyState === this.#socket.CLOSED) return resolve();
      const timer = setTimeout(() => this.#socket.terminate(), 1_000);
      this.#socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.close(CloseCode.GOING_AWAY, 'Server shutting down');
    });
  }

  /** Closes the socket with a protocol code; nothing is sent after it. */
  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#socket.close(code, reason);
    this.#dispose();
  }

  #send(text: string): void {
    if (this.#closed) return;
    this.#cork();
    this.#socket.send(text);
    if (this.#socket.bufferedAmount > this.#deps.options.highWaterMarkBytes) {
      this.#deps.logger.warn('closing a slow live consumer (4100, resume)', {
        owner: this.#owner,
        bufferedBytes: this.#socket.bufferedAmount,
      });
      this.close(CloseCode.RESUME, 'Slow consumer: reconnect and resume with afterSeq');
    }
  }

  /**
   * Holds this tick's frames in the TCP socket and writes them with one syscall once the event
   * loop moves on: the events of one commit reach a socket in one write instead of one each.
   * (`ws` keeps its net.Socket as `_socket`; without it, frames are simply written one by one.)
   */
  #cork(): void {
    if (this.#corked) return;
    const tcp = (this.#socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!tcp) return;
    this.#corked = true;
    tcp.cork();
    setImmediate(() => {
      this.#corked = false;
      tcp.uncork();
    });
  }

  /** Whether the socket's credentials still name the same owner; closes it with 4403 if not. */
  #authorized(): boolean {
    if (this.#owner !== null && this.#deps.authenticate(this.#authorization) === this.#owner) return true;
    this.close(CloseCode.FORBIDDEN, 'Forbidden');
    return false;
  }

  #onMessage(text: string | null): void {
    if (this.#closed) return;
    const message = text === null ? null : parseClientMessage(text);
    if (message === null) {
      this.close(CloseCode.BAD_REQUEST, 'Invalid message received');
      return;
    }
    this.#handle(message);
  }

  #handle(message: ClientMessage): void {
    switch (message.type) {
      case 'connection_init': {
        if (this.#initTimer === null) {
          this.close(CloseCode.TOO_MANY_INIT, 'Too many initialisation requests');
          return;
        }
        clearTimeout(this.#initTimer);
        this.#initTimer = null;
        const value = message.payload?.authorization ?? message.payload?.Authorization;
        this.#authorization = typeof value === 'string' ? value : null;
        this.#owner = this.#deps.authenticate(this.#authorization);
        if (this.#owner === null) {
          this.close(CloseCode.FORBIDDEN, 'Forbidden');
          return;
        }
        this.#socket.send('{"type":"connection_ack"}');
        return;
      }
      case 'ping':
        this.#socket.send('{"type":"pong"}');
        return;
      case 'pong':
        return;
      case 'subscribe':
        if (this.#owner === null) {
          this.close(CloseCode.UNAUTHORIZED, 'Unauthorized');
          return;
        }
        if (this.#running?.has(message.id)) {
          this.close(CloseCode.SUBSCRIBER_EXISTS, `Subscriber for ${message.id} already exists`);
          return;
        }
        void this.#subscribe(message.id, message.payload, this.#owner).catch((error: unknown) => {
          this.#deps.logger.error('live operation failed', { error });
          this.close(CloseCode.INTERNAL_ERROR, 'Internal server error');
        });
        return;
      case 'complete': {
        const running = this.#running?.get(message.id);
        if (running) this.#finish(message.id, running);
        return;
      }
    }
  }

  /** Reserves a slot (socket and owner caps); null when a cap is reached. */
  #reserve(id: string, owner: OwnerId): Running | null {
    const { options, ownerCounts } = this.#deps;
    this.#running ??= new Map();
    const ownerCount = ownerCounts.get(owner) ?? 0;
    if (this.#running.size >= options.maxSubscriptionsPerSocket || ownerCount >= options.maxSubscriptionsPerOwner) {
      return null;
    }
    ownerCounts.set(owner, ownerCount + 1);
    const running: Running = { cancelled: false, iterator: null };
    this.#running.set(id, running);
    return running;
  }

  /** Ends an operation: stops its source and frees its slot (idempotent). */
  #finish(id: string, running: Running): void {
    if (running.cancelled) return;
    running.cancelled = true;
    void running.iterator?.return?.();
    if (this.#running?.get(id) === running) this.#running.delete(id);
    const owner = this.#owner;
    if (owner !== null) {
      const left = (this.#deps.ownerCounts.get(owner) ?? 1) - 1;
      if (left > 0) this.#deps.ownerCounts.set(owner, left);
      else this.#deps.ownerCounts.delete(owner);
    }
  }

  async #subscribe(id: string, payload: SubscribePayload, owner: OwnerId): Promise<void> {
    const running = this.#reserve(id, owner);
    if (running === null) {
      const limit = {
        message: 'Too many subscriptions.',
        extensions: {
          code: 'SUBSCRIPTION_LIMIT',
          perSocket: this.#deps.options.maxSubscriptionsPerSocket,
          perOwner: this.#deps.options.maxSubscriptionsPerOwner,
        },
      };
      this.#send(errorFrame(id, [limit]));
      return;
    }
    const prepared = this.#deps.prepare(payload.query);
    if ('errors' in prepared) return this.#fail(id, running, prepared.errors);
    const args: ExecutionArgs = {
      schema: prepared.schema,
      document: prepared.document,
      operationName: payload.operationName ?? null,
      variableValues: payload.variables ?? null,
      contextValue: this.#deps.createContext(owner),
    };
    const operation = getOperationAST(prepared.document, payload.operationName ?? null);
    if (operation?.operation !== 'subscription') {
      return this.#end(id, running, await execute(args));
    }
    const source = await createSourceEventStream(args);
    // As graphql-ws does: a subscription that fails to start answers `next` with the errors.
    if (!(Symbol.asyncIterator in source)) return this.#end(id, running, source as ExecutionResult);
    const iterator = source[Symbol.asyncIterator]();
    running.iterator = iterator;
    if (running.cancelled) {
      void iterator.return?.();
      return;
    }
    const group = this.#deps.shared.join(
      shareKey(
        prepared.schema,
        prepared.document,
        payload.query,
        args.operationName ?? null,
        payload.variables ?? null,
        owner,
      ),
    );
    try {
      await this.#deliver(id, running, iterator, (event) =>
        group.result(event, async () =>
          this.#serialize(await execute({ ...args, contextValue: this.#deps.createContext(owner), rootValue: event })),
        ),
      );
    } finally {
      group.release();
    }
  }

  /** Pulls source events and sends each one's (shared) result, in order, while authorized. */
  async #deliver(
    id: string,
    running: Running,
    iterator: AsyncIterator<unknown>,
    resultOf: (event: unknown) => Promise<string>,
  ): Promise<void> {
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done || running.cancelled) break;
        const json = await resultOf(step.value);
        if (running.cancelled || !this.#authorized()) break;
        this.#send(nextFrame(id, json));
      }
    } catch (error) {
      // A source that fails mid-stream (RESUME_EXPIRED during a replay): its errors, then complete.
      if (!running.cancelled) return this.#end(id, running, { errors: [error as GraphQLError] });
    }
    if (!running.cancelled) {
      this.#send(completeFrame(id));
      this.#finish(id, running);
    }
  }

  /** Sends a final result (`next`) and `complete`. */
  #end(id: string, running: Running, result: ExecutionResult): void {
    if (running.cancelled) return;
    this.#send(nextFrame(id, this.#serialize(result)));
    this.#send(completeFrame(id));
    this.#finish(id, running);
  }

  /** Sends `error`: the operation was refused before it ran (validation, limits). */
  #fail(id: string, running: Running, errors: readonly unknown[]): void {
    if (running.cancelled) return;
    this.#send(
      errorFrame(
        id,
        errors.map((error) => this.#deps.maskError(error)),
      ),
    );
    this.#finish(id, running);
  }

  /** The ExecutionResult as JSON, with every error through the server's one mask. */
  #serialize(result: ExecutionResult): string {
    if (!result.errors?.length) return JSON.stringify({ data: result.data });
    return JSON.stringify({ ...result, errors: result.errors.map((error) => this.#deps.maskError(error)) });
  }

  #dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#initTimer !== null) clearTimeout(this.#initTimer);
    this.#initTimer = null;
    for (const [id, running] of this.#running ?? []) this.#finish(id, running);
  }
}
