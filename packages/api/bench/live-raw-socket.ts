import { randomBytes, randomFillSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** What a {@link RawWebSocket} reports. */
export interface RawWebSocketEvents {
  /** The upgrade was accepted (101). */
  onOpen(): void;
  /** One text message; `data` is a view into the received bytes, valid only during the call. */
  onText(data: Buffer): void;
  /** Anything unexpected: a refused upgrade, a malformed or fragmented frame, a socket error. */
  onError(reason: string): void;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const OP_TEXT = 0x1;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/**
 * A minimal WebSocket client for the live benchmark (RFC 6455, one subprotocol, text messages,
 * no extensions) over a plain TCP socket.
 *
 * @remarks The benchmark's 1,000 clients share the machine's two cores with the server, so the
 * clients must cost as little as possible: this reads each TCP chunk and walks its frames in
 * place (no stream machinery, no copy of a payload, no UTF-8 validation), where `ws` parses
 * through a Writable stream and emits each message separately. It answers pings and sends
 * masked frames as the protocol requires; fragmented messages are reported as errors (neither
 * server under test fragments).
 */
export class RawWebSocket {
  readonly #socket: Socket;
  readonly #events: RawWebSocketEvents;
  #open = false;
  /** Bytes of an incomplete handshake response or frame, kept until the rest arrives. */
  #rest: Buffer | null = null;

  constructor(url: string, protocol: string, events: RawWebSocketEvents) {
    const { hostname, port, pathname } = new URL(url);
    this.#events = events;
    this.#socket = connect(Number(port), hostname);
    this.#socket.setNoDelay(true);
    this.#socket.on('connect', () => {
      this.#socket.write(
        `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
      );
    });
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('error', (error) => events.onError(error.message));
  }

  /** Sends a text message (masked, as every client frame must be). */
  send(text: string): void {
    this.#sendFrame(OP_TEXT, Buffer.from(text));
  }

  /** Drops the connection without a closing handshake. */
  terminate(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    let data = this.#rest === null ? chunk : Buffer.concat([this.#rest, chunk]);
    this.#rest = null;
    if (!this.#open) {
      const end = data.indexOf(CRLF2);
      if (end < 0) {
        this.#rest = data;
        return;
      }
      if (!data.subarray(0, 13).toString('latin1').startsWith('HTTP/1.1 101')) {
        this.#events.onError(`upgrade refused: ${data.subarray(0, data.indexOf('\r\n')).toString('latin1')}`);
        this.#socket.destroy();
        return;
      }
      this.#open = true;
      this.#events.onOpen();
      data = data.subarray(end + CRLF2.length);
    }
    let offset = 0;
    while (offset < data.length) {
      const used = this.#frame(data, offset);
      if (used === 0) break;
      offset += used;
    }
    if (offset < data.length) this.#rest = Buffer.from(data.subarray(offset));
  }

  /** Handles the frame at `offset`; returns its length, or 0 when it is not complete yet. */
  #frame(data: Buffer, offset: number): number {
    if (data.length - offset < 2) return 0;
    const first = data[offset] as number;
    let length = (data[offset + 1] as number) & 0x7f;
    let start = offset + 2;
    if (length === 126) {
      if (data.length - offset < 4) return 0;
      length = data.readUInt16BE(offset + 2);
      start = offset + 4;
    } else if (length === 127) {
      if (data.length - offset < 10) return 0;
      length = Number(data.readBigUInt64BE(offset + 2));
      start = offset + 10;
    }
    if (data.length < start + length) return 0;
    const payload = data.subarray(start, start + length);
    const opcode = first & 0x0f;
    if ((first & 0x80) === 0 || (opcode !== OP_TEXT && opcode < OP_CLOSE)) {
      this.#events.onError(`unexpected frame (opcode ${opcode}, fin ${first >> 7})`);
    } else if (opcode === OP_TEXT) {
      this.#events.onText(payload);
    } else if (opcode === OP_PING) {
      this.#sendFrame(OP_PONG, Buffer.from(payload));
    } else if (opcode === OP_CLOSE) {
      this.#socket.end();
    }
    return start + length - offset;
  }

  #sendFrame(opcode: number, payload: Buffer): void {
    const extended = payload.length < 126 ? 0 : payload.length < 65_536 ? 2 : 8;
    const header = Buffer.alloc(2 + extended + 4);
    header[0] = 0x80 | opcode;
    if (extended === 0) header[1] = 0x80 | payload.length;
    else if (extended === 2) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(payload.length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    const mask = randomFillSync(Buffer.alloc(4));
    mask.copy(header, 2 + extended);
    for (let i = 0; i < payload.length; i += 1) payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
    this.#socket.write(Buffer.concat([header, payload]));
  }
}
