import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** A client frame (RFC 6455 §5.2): masked, with the given FIN bit and opcode. */
export function clientFrame(payload: Buffer, opcode: number, fin = true): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | length])
      : length < 65_536
        ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, length >> 8, length & 0xff])
        : (() => {
            const big = Buffer.alloc(10);
            big[0] = (fin ? 0x80 : 0) | opcode;
            big[1] = 0x80 | 127;
            big.writeBigUInt64BE(BigInt(length), 2);
            return big;
          })();
  const mask = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] = (masked[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([header, mask, masked]);
}

/** Opcodes used by the tests. */
export const Opcode = { CONTINUATION: 0x0, TEXT: 0x1, BINARY: 0x2, PING: 0x9, PONG: 0xa } as const;

/**
 * A WebSocket client over a bare TCP socket, for what a library client cannot send: fragments
 * left open, frames cut in the middle. It answers every ping with a pong, as a live peer does.
 */
export class FrameSocket {
  readonly closed: Promise<void>;
  #buffer = Buffer.alloc(0);
  /** Text messages received (unfragmented server frames). */
  readonly messages: string[] = [];

  private constructor(readonly socket: Socket) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', () => {});
  }

  /** Opens `url` (ws://host:port/path) with the graphql-transport-ws subprotocol. */
  static async open(url: string): Promise<FrameSocket> {
    const { hostname, port, pathname } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(
      `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        'Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
    );
    const head = await new Promise<Buffer>((resolve) => {
      let data = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        const end = data.indexOf('\r\n\r\n');
        if (end >= 0) {
          socket.off('data', onData);
          resolve(data.subarray(end + 4));
        }
      };
      socket.on('data', onData);
    });
    const frames = new FrameSocket(socket);
    if (head.length > 0) frames.#read(head);
    return frames;
  }

  /** Sends raw bytes. */
  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Sends one complete text message. */
  sendText(text: string): void {
    this.write(clientFrame(Buffer.from(text), Opcode.TEXT));
  }

  #read(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (this.#buffer.length < 2) return;
      const opcode = (this.#buffer[0] as number) & 0x0f;
      let length = (this.#buffer[1] as number) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.#buffer.length < 4) return;
        length = this.#buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.#buffer.length < 10) return;
        length = Number(this.#buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.#buffer.length < offset + length) return;
      const payload = this.#buffer.subarray(offset, offset + length);
      this.#buffer = this.#buffer.subarray(offset + length);
      if (opcode === Opcode.PING) this.write(clientFrame(Buffer.from(payload), Opcode.PONG));
      else if (opcode === Opcode.TEXT) this.messages.push(payload.toString('utf8'));
    }
  }
}
