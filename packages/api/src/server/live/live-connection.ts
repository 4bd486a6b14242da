import type { OwnerId } from '@agent-teams/core';
import type { WebSocket } from 'ws';
import type { LiveConnectionDeps, OperationHost } from './connection-deps.js';
import { FrameWriter } from './frame-writer.js';
import type { KeepAliveTarget } from './keep-alive.js';
import { type Operation, OperationSlots } from './operation-slots.js';
import { type ClientMessage, CloseCode, errorFrame, parseClientMessage } from './protocol.js';
import { runOperation } from './run-operation.js';

/**
 * One graphql-transport-ws connection: init and authentication, the protocol's messages, the
 * socket's operations and its keep-alive.
 *
 * @remarks Authorization is re-checked at every delivery (the token may have been revoked since
 * the socket opened) and at every keep-alive tick; a failed check closes the socket with 4403, so
 * nothing more reaches it. Operations run in `run-operation.ts`, frames leave through
 * {@link FrameWriter}, caps live in {@link OperationSlots}.
 */
export class LiveConnection implements OperationHost, KeepAliveTarget {
  readonly deps: LiveConnectionDeps;
  readonly writer: FrameWriter;
  readonly #socket: WebSocket;
  readonly #slots: OperationSlots;
  #authorization: string | null = null;
  #owner: OwnerId | null = null;
  #initTimer: NodeJS.Timeout | null;
  #closed = false;
  /** Cleared by every ping, set by the pong: a socket still unanswered at the next tick is dead. */
  alive = true;

  constructor(socket: WebSocket, deps: LiveConnectionDeps) {
    this.#socket = socket;
    this.deps = deps;
    this.writer = new FrameWriter(socket, deps.options.highWaterMarkBytes, (buffered) => this.#slow(buffered));
    this.#slots = new OperationSlots(deps.options, deps.ownerCounts);
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

  tick(): void {
    // A closing socket (e.g. a slow consumer draining toward its 4100) is left to ws's close timeout.
    if (this.#closed) return;
    if (!this.alive) {
      this.#socket.terminate();
      return;
    }
    if (this.#owner !== null && !this.authorized()) return;
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
    // Closed first, so a check while flushing (a full buffer: 4100) cannot replace this code.
    this.#closed = true;
    // Frames of the current burst go first; nothing is sent after the close frame.
    this.writer.flush();
    this.#socket.close(code, reason);
    this.#release();
  }

  authorized(): boolean {
    if (this.#owner !== null && this.deps.authenticate(this.#authorization) === this.#owner) return true;
    this.close(CloseCode.FORBIDDEN, 'Forbidden');
    return false;
  }

  finish(operation: Operation): void {
    this.#slots.finish(operation);
  }

  #slow(bufferedBytes: number): void {
    this.deps.logger.warn('closing a slow live consumer (4100, resume)', { owner: this.#owner, bufferedBytes });
    this.close(CloseCode.RESUME, 'Slow consumer: reconnect and resume with afterSeq');
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
      case 'connection_init':
        this.#init(message.payload);
        return;
      case 'ping':
        this.writer.send('{"type":"pong"}');
        return;
      case 'pong':
        return;
      case 'subscribe':
        this.#subscribe(message);
        return;
      case 'complete': {
        const operation = this.#slots.get(message.id);
        if (operation) this.finish(operation);
        return;
      }
    }
  }

  #init(payload: Readonly<Record<string, unknown>> | null | undefined): void {
    if (this.#initTimer === null) {
      this.close(CloseCode.TOO_MANY_INIT, 'Too many initialisation requests');
      return;
    }
    clearTimeout(this.#initTimer);
    this.#initTimer = null;
    const value = payload?.authorization ?? payload?.Authorization;
    this.#authorization = typeof value === 'string' ? value : null;
    this.#owner = this.deps.authenticate(this.#authorization);
    if (this.#owner === null) {
      this.close(CloseCode.FORBIDDEN, 'Forbidden');
      return;
    }
    this.writer.send('{"type":"connection_ack"}');
  }

  #subscribe(message: Extract<ClientMessage, { type: 'subscribe' }>): void {
    if (this.#owner === null) {
      this.close(CloseCode.UNAUTHORIZED, 'Unauthorized');
      return;
    }
    if (this.#slots.has(message.id)) {
      this.close(CloseCode.SUBSCRIBER_EXISTS, `Subscriber for ${message.id} already exists`);
      return;
    }
    const operation = this.#slots.reserve(message.id, this.#owner);
    if (operation === null) {
      this.writer.send(errorFrame(message.id, [this.#slots.limitError()]));
      return;
    }
    runOperation(this, operation, message.payload).catch((error: unknown) => {
      this.deps.logger.error('live operation failed', { error });
      this.close(CloseCode.INTERNAL_ERROR, 'Internal server error');
    });
  }

  /** The socket closed (from either side). */
  #dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
  }

  #release(): void {
    if (this.#initTimer !== null) clearTimeout(this.#initTimer);
    this.#initTimer = null;
    this.#slots.finishAll();
  }
}
