/**
 * The graphql-transport-ws protocol (graphql-ws 6), server side: message shapes and close codes.
 *
 * @remarks The protocol is small (connection_init/ack, ping/pong, subscribe, next, error,
 * complete); implementing it here lets the server send one serialized payload to many
 * subscribers. The codes below 4100 are the protocol's own, so the stock graphql-ws client reacts
 * to them as documented there; 4100 is ours.
 */
export const CloseCode = {
  /** A message that is not valid JSON or not a protocol message. */
  BAD_REQUEST: 4400,
  /** `subscribe` before `connection_ack`. */
  UNAUTHORIZED: 4401,
  /** No, unknown or revoked credentials (at init, or re-checked at delivery). */
  FORBIDDEN: 4403,
  /** No `connection_init` within the init timeout. */
  INIT_TIMEOUT: 4408,
  /** A `subscribe` reused the id of a running operation. */
  SUBSCRIBER_EXISTS: 4409,
  /** A second `connection_init`, or an owner's socket past `maxSocketsPerOwner` (its reason says which). */
  TOO_MANY_INIT: 4429,
  /** The server failed unexpectedly. */
  INTERNAL_ERROR: 4500,
  /**
   * The client did not read fast enough (its send buffer passed the high-water mark): reconnect
   * and resubscribe `teamEvents` with `afterSeq` = the last seq received; nothing is lost.
   */
  RESUME: 4100,
  /** The socket did not offer the `graphql-transport-ws` subprotocol. */
  SUBPROTOCOL_NOT_ACCEPTABLE: 4406,
  /** A message larger than the maximum (64 KiB); sent by `ws` itself. */
  MESSAGE_TOO_BIG: 1009,
  /** The server is shutting down. */
  GOING_AWAY: 1001,
} as const;

/**
 * The longest operation id accepted, in UTF-8 bytes (longer: close 4400). graphql-ws clients
 * use UUIDs (36 bytes); an id is kept per operation and echoed in every frame, so it is bounded.
 */
export const MAX_OPERATION_ID_BYTES = 128;

/** The subprotocol spoken. */
export const SUBPROTOCOL = 'graphql-transport-ws';

/** A `subscribe` message's payload. */
export interface SubscribePayload {
  readonly query: string;
  readonly operationName?: string | null;
  readonly variables?: Record<string, unknown> | null;
  readonly extensions?: Record<string, unknown> | null;
}

/** A message a client may send. */
export type ClientMessage =
  | { readonly type: 'connection_init'; readonly payload?: Record<string, unknown> | null }
  | { readonly type: 'ping' | 'pong'; readonly payload?: Record<string, unknown> | null }
  | { readonly type: 'subscribe'; readonly id: string; readonly payload: SubscribePayload }
  | { readonly type: 'complete'; readonly id: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An optional object field: absent, null or an object. */
const optionalRecord = (value: unknown): boolean => value === undefined || value === null || isRecord(value);

/** A usable operation id: a non-empty string of at most {@link MAX_OPERATION_ID_BYTES} bytes. */
const isOperationId = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && Buffer.byteLength(value, 'utf8') <= MAX_OPERATION_ID_BYTES;

/**
 * Parses one text frame; null when it is not a valid client message (close with 4400).
 *
 * @remarks The checks of graphql-ws 6's `validateMessage` (payload shapes, `query` a string,
 * `variables` and `extensions` objects, `operationName` a string), plus a bounded id. Server
 * messages (`next`, `error`, `connection_ack`) sent by a client are invalid here.
 */
export function parseClientMessage(text: string): ClientMessage | null {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(message)) return null;
  const payloadOk = optionalRecord(message.payload);
  switch (message.type) {
    case 'connection_init':
    case 'ping':
    case 'pong':
      return payloadOk ? (message as ClientMessage) : null;
    case 'subscribe': {
      const { id, payload } = message;
      if (!isOperationId(id) || !isRecord(payload) || typeof payload.query !== 'string') return null;
      if (!optionalRecord(payload.variables) || !optionalRecord(payload.extensions)) return null;
      if (payload.operationName != null && typeof payload.operationName !== 'string') return null;
      return message as ClientMessage;
    }
    case 'complete':
      return isOperationId(message.id) ? (message as ClientMessage) : null;
    default:
      return null;
  }
}

/** `next` frame text around an already-serialized ExecutionResult: only the id differs. */
export function nextFrame(id: string, payloadJson: string): string {
  return `{"id":${JSON.stringify(id)},"type":"next","payload":${payloadJson}}`;
}

const CLOSE_BRACE = 0x7d;

/** The bytes of a `next` frame up to its payload: computed once per operation. */
export function nextFramePrefix(id: string): Buffer {
  const shared = SHARED_PREFIXES.get(id);
  if (shared !== undefined) return shared;
  const prefix = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  if (isSharedPrefixId(id)) {
    SHARED_PREFIXES.set(id, prefix);
    SHARED_PREFIX_BUFFERS.add(prefix);
  }
  return prefix;
}

/**
 * Operation ids `"0"` to `"1023"` (written without leading zeros) share one prefix buffer across
 * sockets, so subscribers of one event with the same id share one encoded frame (`ws-frames.ts`).
 * The widget numbers its operations from 1; graphql-ws's own client uses random UUIDs, whose
 * prefixes stay per operation (their frames are encoded per socket, as before). A fixed set, so
 * neither many clients nor a hostile one can fill it with other ids.
 */
export const SHARED_PREFIX_IDS = 1024;
const SHARED_PREFIXES = new Map<string, Buffer>();
const SHARED_PREFIX_BUFFERS = new WeakSet<Buffer>();

function isSharedPrefixId(id: string): boolean {
  if (id.length > 4 || !/^(0|[1-9][0-9]*)$/.test(id)) return false;
  return Number(id) < SHARED_PREFIX_IDS;
}

/** Whether `prefix` is the one buffer every operation with its id shares ({@link nextFramePrefix}). */
export function isSharedPrefix(prefix: Buffer): boolean {
  return SHARED_PREFIX_BUFFERS.has(prefix);
}

/**
 * A `next` frame as bytes: the operation's prefix, a serialized payload shared by every
 * subscriber of the group, and the closing brace (one copy, no re-encoding of the payload).
 */
export function nextFrameBytes(prefix: Buffer, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(prefix.length + payload.length + 1);
  prefix.copy(frame, 0);
  payload.copy(frame, prefix.length);
  frame[frame.length - 1] = CLOSE_BRACE;
  return frame;
}

/** `error` frame text (the operation failed before producing results). */
export function errorFrame(id: string, errors: readonly unknown[]): string {
  return JSON.stringify({ id, type: 'error', payload: errors });
}

/** `complete` frame text. */
export function completeFrame(id: string): string {
  return `{"id":${JSON.stringify(id)},"type":"complete"}`;
}
