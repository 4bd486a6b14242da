import { isSharedPrefix } from './protocol.js';

/**
 * WebSocket frames (RFC 6455 §5.2) of graphql-transport-ws `next` messages, server to client:
 * final, text, unmasked. Several messages become one buffer, written with one call.
 *
 * @remarks `ws` frames each message separately (a header buffer plus the data, two writes per
 * message into the socket); for a burst of small messages to a thousand sockets that framing is
 * a good part of the CPU, so the fan-out frames its own messages. Each message is the
 * operation's prefix (`{"id":…,"type":"next","payload":`), the shared payload bytes and `}`.
 */
export function encodeNextFrames(parts: readonly Buffer[]): Buffer {
  let total = 0;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const length = messageLength(parts, i);
    total += headerLength(length) + length;
  }
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const prefix = parts[i] as Buffer;
    const payload = parts[i + 1] as Buffer;
    offset = writeHeader(out, offset, messageLength(parts, i));
    offset += prefix.copy(out, offset);
    offset += payload.copy(out, offset);
    out[offset++] = CLOSE_BRACE;
  }
  return out;
}

/**
 * Single frames encoded in the current task, by payload, then by (shared) prefix. Emptied at the
 * end of the task: the subscribers that can share a frame are those of one fan-out, which all
 * write in the task that woke them, and nothing of an event outlives its delivery here.
 */
let taskFrames: Map<Buffer, Map<Buffer, Buffer>> | null = null;

function forgetTaskFrames(): void {
  taskFrames = null;
}

/**
 * The WebSocket frame of one `next` message, shared within a task: the subscribers of one event
 * whose operations share their prefix buffer (the same small numeric id, `nextFramePrefix`)
 * write the same bytes.
 *
 * @remarks One frame per (payload, prefix) is encoded instead of one buffer per socket and
 * delivery. Sockets only read what they are given, so one buffer can be written to many. A
 * prefix of its own (any other id) is encoded per call and not kept.
 */
export function encodeNextFrame(prefix: Buffer, payload: Buffer): Buffer {
  if (!isSharedPrefix(prefix)) return encodeNextFrames([prefix, payload]);
  if (taskFrames === null) {
    taskFrames = new Map();
    queueMicrotask(forgetTaskFrames);
  }
  let byPrefix = taskFrames.get(payload);
  if (byPrefix === undefined) {
    byPrefix = new Map();
    taskFrames.set(payload, byPrefix);
  }
  let frame = byPrefix.get(prefix);
  if (frame === undefined) {
    frame = encodeNextFrames([prefix, payload]);
    byPrefix.set(prefix, frame);
  }
  return frame;
}

const FIN_TEXT = 0x81;
const CLOSE_BRACE = 0x7d;

function messageLength(parts: readonly Buffer[], i: number): number {
  return (parts[i]?.length ?? 0) + (parts[i + 1]?.length ?? 0) + 1;
}

function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

function writeHeader(out: Buffer, offset: number, length: number): number {
  out[offset] = FIN_TEXT;
  if (length < 126) {
    out[offset + 1] = length;
    return offset + 2;
  }
  if (length < 65_536) {
    out[offset + 1] = 126;
    out.writeUInt16BE(length, offset + 2);
    return offset + 4;
  }
  out[offset + 1] = 127;
  out.writeBigUInt64BE(BigInt(length), offset + 2);
  return offset + 10;
}
