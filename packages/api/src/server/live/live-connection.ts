import type { WebSocket } from 'ws';
import { closeReason } from './close-reason.js';
import type { LiveConnectionDeps, OperationHost } from './connection-deps.js';
import { FrameWriter } from './frame-writer.js';
import { afterPendingInput, type KeepAliveTarget } from './keep-alive.js';
import { type Operation, OperationSlots } from './operation-slots.js';
import { type ClientMessage, CloseCode, errorFrame, parseClientMessage } from './protocol.js';
import { runOperation } from './run-operation.js';
import { SocketAuthority } from './socket-authority.js';

/** What `ws` keeps of a message still arriving (internal fields of its Receiver, ws 8). */
interface ReceiverState {
  readonly _bufferedBytes?: number;
  readonly _fragmented?: number;
}

/**
 * One graphql-transport-ws connection: init and authentication, the protocol's messages, the
 * socket's operations and its keep-alive.
 *
 * @remarks Authorization is re-checked at every delivery (a static token may have been removed,
 * a host-signed token may have expired since the socket opened) and at every keep-alive tick; a
 * failed check closes the socket with 4403, so nothing more reaches it. A socket whose token
 * expires also closes with 4403 at the expiry itself ({@link SocketAuthority}'s timer), even
 * when nothing is delivered. Operations run in `run-operation.ts`, frames leave through
 * {@link FrameWriter}, caps live in {@link OperationSlots}.
 *
 * Whatever one message does, at worst this socket closes: every handler runs inside
 * {@link LiveConnection.guarded}, which turns an escaped error into close 4500 and frees the
 * socket's operations (and the owner's counts with them); the server and other sockets go on.
 * Close reasons are the server's own constants, cut to fit a close frame.
 */
export class LiveConnection implements OperationHost, KeepAliveTarget {
  readonly deps: LiveConnectionDeps;
  readonly writer: FrameWriter;
  readonly #socket: WebSocket;
  readonly #slots: OperationSlots;
  readonly #authority: SocketAuthority;
  #initTimer: NodeJS.Timeout | null;
  /** Frees this socket's place among its owner's sockets; null until acknowledged. */
  #releaseSocket: (() => void) | null = null;
  #closed = false;
  /** Cleared by every ping, set by the pong: a socket still unanswered at the next tick is dead. */
  alive = true;
  /** Messages completed since the last tick, and whether one was half-received at that tick. */
  #messagesSinceTick = 0;
  #partialAtTick = false;

  constructor(socket: WebSocket, deps: LiveConnectionDeps) {
    this.#socket = socket;
    this.deps = deps;
    this.writer = new FrameWriter(
      socket,
      deps.options.highWaterMarkBytes,
      (buffered) => this.#slow(buffered),
      (error) =>
        this.guarded('flush', () => {
          throw error;
        }),
    );
    this.#slots = new OperationSlots(deps.options, deps.ownerCounts);
    this.#authority = new SocketAuthority(deps.auth, () => this.guarded('expiry', () => this.authorized()));
    this.#initTimer = setTimeout(
      // After the input that arrived meanwhile: a `connection_init` read then clears the timer.
      () =>
        afterPendingInput(() => {
          if (this.#initTimer === null) return;
          this.guarded('init timeout', () => this.close(CloseCode.INIT_TIMEOUT, 'Connection initialisation timeout'));
        }),
      deps.options.initTimeoutMs,
    );
    socket.on('message', (data, isBinary) =>
      this.guarded('message', () => this.#onMessage(isBinary ? null : data.toString())),
    );
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.once('close', () => this.guarded('close', () => this.#dispose()));
  }

  /**
   * Runs one handler of this socket: an error it throws is logged and closes this socket with
   * 4500 (its operations freed), and never reaches the event loop.
   */
  guarded(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.deps.logger.error('live socket handler failed; closing the socket', {
        what,
        owner: this.#authority.owner,
        error,
      });
      try {
        this.close(CloseCode.INTERNAL_ERROR, 'Internal server error');
      } catch {
        // Closing itself failed: drop the socket and free what it held.
        this.#socket.terminate();
        this.#dispose();
      }
    }
  }

  tick(): void {
    this.guarded('tick', () => this.#tick());
  }

  #tick(): void {
    // A closing socket (e.g. a slow consumer draining toward its 4100) is left to ws's close timeout.
    if (this.#closed) return;
    if (!this.alive || this.#stalledMessage()) {
      this.#socket.terminate();
      return;
    }
    if (this.#authority.owner !== null && !this.authorized()) return;
    this.alive = false;
    this.#socket.ping();
  }

  /**
   * True when a message was half-received at the previous tick and none completed since: a
   * peer trickling a frame (or keeping a fragmented message open between pongs) is dropped
   * after one to two keep-alive intervals, holding at most one message (64 KiB) meanwhile.
   */
  #stalledMessage(): boolean {
    const receiver = (this.#socket as unknown as { _receiver?: ReceiverState })._receiver;
    const partial = (receiver?._bufferedBytes ?? 0) > 0 || (receiver?._fragmented ?? 0) !== 0;
    const stalled = partial && this.#partialAtTick && this.#messagesSinceTick === 0;
    this.#partialAtTick = partial;
    this.#messagesSinceTick = 0;
    return stalled;
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
    try {
      this.writer.flush();
      this.#socket.close(code, closeReason(reason));
    } finally {
      this.#release();
    }
  }

  authorized(): boolean {
    if (this.#authority.valid()) return true;
    this.close(CloseCode.FORBIDDEN, 'Forbidden');
    return false;
  }

  finish(operation: Operation): void {
    this.#slots.finish(operation);
  }

  #slow(bufferedBytes: number): void {
    this.deps.logger.warn('closing a slow live consumer (4100, resume)', {
      owner: this.#authority.owner,
      bufferedBytes,
    });
    this.close(CloseCode.RESUME, 'Slow consumer: reconnect and resume with afterSeq');
  }

  #onMessage(text: string | null): void {
    this.#messagesSinceTick += 1;
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
    // Verifying a host token may wait for its key set; a subscribe meanwhile is refused (4401).
    void this.#authority.grant(typeof value === 'string' ? value : null).then(
      (owner) =>
        this.guarded('init', () => {
          if (this.#closed) return;
          if (owner === null) return this.close(CloseCode.FORBIDDEN, 'Forbidden');
          this.#releaseSocket = this.deps.ownerSockets.take(owner);
          if (this.#releaseSocket === null)
            return this.close(CloseCode.TOO_MANY_INIT, 'Too many sockets for this owner');
          this.writer.send('{"type":"connection_ack"}');
        }),
      (error: unknown) =>
        this.guarded('init', () => {
          throw error;
        }),
    );
  }

  #subscribe(message: Extract<ClientMessage, { type: 'subscribe' }>): void {
    const owner = this.#authority.owner;
    if (owner === null) {
      this.close(CloseCode.UNAUTHORIZED, 'Unauthorized');
      return;
    }
    if (this.#slots.has(message.id)) {
      // The id is never echoed in the reason (a long one would not fit a close frame).
      this.close(CloseCode.SUBSCRIBER_EXISTS, 'Subscriber already exists');
      return;
    }
    const operation = this.#slots.reserve(message.id, owner);
    if (operation === null) {
      this.writer.send(errorFrame(message.id, [this.#slots.limitError()]));
      return;
    }
    runOperation(this, operation, message.payload).catch((error: unknown) =>
      this.guarded('operation', () => {
        this.deps.logger.error('live operation failed', { owner: operation.owner, error });
        // The operation failed half-way: its slot (and the owner's count) is freed with the socket.
        this.close(CloseCode.INTERNAL_ERROR, 'Internal server error');
      }),
    );
  }

  /** The socket closed (from either side). */
  #dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
  }

  #release(): void {
    this.#releaseSocket?.();
    this.#releaseSocket = null;
    this.#authority.end();
    if (this.#initTimer !== null) clearTimeout(this.#initTimer);
    this.#initTimer = null;
    this.#slots.finishAll();
  }
}
