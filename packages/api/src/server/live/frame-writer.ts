import type { WebSocket } from 'ws';
import { nextFrameBytes } from './protocol.js';
import { encodeNextFrame, encodeNextFrames } from './ws-frames.js';

/** The TCP socket under a `ws` WebSocket (`ws` keeps it as `_socket`). */
type RawSocket = { write(data: Buffer): boolean };

/** `ws` sends a Buffer as a binary frame unless told otherwise; our frames are UTF-8 JSON text. */
const TEXT = { binary: false } as const;

/**
 * Writes protocol frames to one socket: the `next` frames of a burst in one write, and a
 * consumer that does not read closed (4100) instead of buffered without limit.
 *
 * @remarks `next` frames wait in the writer until {@link flush}, then leave as one buffer with
 * one write (one system call): on loopback a write costs about as much CPU as everything else a
 * delivery does, so the events of one commit should reach a socket in one write. The caller
 * flushes as soon as it has nothing more ready for this socket, not at the end of the whole
 * fan-out, so the first sockets are on the wire while later ones are still being served. Any
 * other frame flushes first, so frames leave in the order they were sent. The frames are written
 * to the TCP socket under `ws` directly: `ws` writes its own frames (pings, close) synchronously
 * as well, because this server never negotiates compression; with an extension (never here) the
 * writer falls back to `ws.send` per frame.
 */
export class FrameWriter {
  readonly #socket: WebSocket;
  readonly #highWaterMarkBytes: number;
  readonly #onSlow: (bufferedBytes: number) => void;
  readonly #onFailed: (error: unknown) => void;
  /** Prefix and payload of each `next` frame not yet written (null when none: idle sockets stay small). */
  #pending: Buffer[] | null = null;
  #pendingBytes = 0;
  #flushScheduled = false;
  /** True while this writer waits in {@link FrameWriter.#afterTask}. */
  #flushAfterTask = false;
  /** Writers whose flush waits for the end of the current task ({@link flushAfterTask}). */
  static #afterTask: FrameWriter[] = [];

  /**
   * @param onSlow - the socket's buffer passed the high-water mark.
   * @param onFailed - a flush after the task ({@link flushAfterTask}) threw: no caller is there to
   * hear it (the connection closes the socket with 4500).
   */
  constructor(
    socket: WebSocket,
    highWaterMarkBytes: number,
    onSlow: (bufferedBytes: number) => void,
    onFailed: (error: unknown) => void,
  ) {
    this.#socket = socket;
    this.#highWaterMarkBytes = highWaterMarkBytes;
    this.#onSlow = onSlow;
    this.#onFailed = onFailed;
  }

  /** Sends one text frame now, after any pending `next` frames (nothing once the socket is closing). */
  send(text: string): void {
    this.flush();
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    this.#socket.send(text);
    this.#checkBuffered();
  }

  /** Adds a `next` frame (the operation's prefix around a shared payload) to the next {@link flush}. */
  sendNext(prefix: Buffer, payload: Buffer): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    this.#pending ??= [];
    this.#pending.push(prefix, payload);
    this.#pendingBytes += prefix.length + payload.length;
    // The socket's own buffer is checked at each write; here only what this burst adds.
    if (this.#pendingBytes > this.#highWaterMarkBytes) this.#checkBuffered();
  }

  /** Writes the pending `next` frames (one write). */
  flush(): void {
    const parts = this.#pending;
    if (parts === null) return;
    this.#pending = null;
    this.#pendingBytes = 0;
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    const raw = (this.#socket as unknown as { _socket?: RawSocket })._socket;
    if (raw && this.#socket.extensions === '') {
      raw.write(parts.length === 2 ? encodeNextFrame(parts[0] as Buffer, parts[1] as Buffer) : encodeNextFrames(parts));
    } else {
      for (let i = 0; i + 1 < parts.length; i += 2) {
        this.#socket.send(nextFrameBytes(parts[i] as Buffer, parts[i + 1] as Buffer), TEXT);
      }
    }
    this.#checkBuffered();
  }

  /**
   * Flushes once the event loop moves on, unless a {@link flush} came first: for a caller that
   * awaits something that usually settles in this turn (a shared result still resolving) and
   * would rather add the next frames to the same write, without holding frames any longer.
   */
  flushSoon(): void {
    if (this.#pending === null || this.#flushScheduled) return;
    this.#flushScheduled = true;
    // No closure per call: in a fan-out, every socket of a commit may ask.
    setImmediate(FrameWriter.#flushScheduledWrites, this);
  }

  /**
   * Flushes at the end of the current task (a microtask), together with every other writer that
   * asked during it, unless a {@link flush} came first: a fan-out prepares every socket's frames,
   * then makes its writes back to back.
   *
   * @remarks On this class of machine a socket write costs more when JavaScript runs between
   * two of them than in a row (token-relay benchmark, docs/benchmarks.md). No frame waits past the
   * current task, and any other frame still flushes first, so order is kept.
   */
  flushAfterTask(): void {
    if (this.#pending === null || this.#flushAfterTask) return;
    this.#flushAfterTask = true;
    FrameWriter.#afterTask.push(this);
    if (FrameWriter.#afterTask.length === 1) queueMicrotask(FrameWriter.#flushAfterTaskWrites);
  }

  static #flushAfterTaskWrites(): void {
    const writers = FrameWriter.#afterTask;
    FrameWriter.#afterTask = [];
    for (const writer of writers) writer.#flushAfterTask = false;
    for (const writer of writers) {
      try {
        writer.flush();
      } catch (error) {
        // One socket's failure is its own: the others of the batch are still written.
        writer.#onFailed(error);
      }
    }
  }

  static #flushScheduledWrites(writer: FrameWriter): void {
    writer.#flushScheduled = false;
    writer.flush();
  }

  #checkBuffered(): void {
    const buffered = this.#socket.bufferedAmount + this.#pendingBytes;
    if (buffered > this.#highWaterMarkBytes) this.#onSlow(buffered);
  }
}
