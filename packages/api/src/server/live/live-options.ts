/** Limits and timings of the live (graphql-ws) endpoint. Every value is documented in README. */
export interface LiveOptions {
  /** Milliseconds a new socket has to send `connection_init` (then close 4408). */
  readonly initTimeoutMs: number;
  /** Largest message a client may send, in bytes (larger: close 1009). */
  readonly maxMessageBytes: number;
  /** Running operations per socket (more: an `error` with SUBSCRIPTION_LIMIT). */
  readonly maxSubscriptionsPerSocket: number;
  /** Running operations per owner across all sockets. */
  readonly maxSubscriptionsPerOwner: number;
  /** Authenticated sockets per owner (one more is closed at its init with 4429). */
  readonly maxSocketsPerOwner: number;
  /** Interval of WebSocket pings; a socket that did not answer the previous one is dropped. */
  readonly keepAliveMs: number;
  /** Bytes queued for one socket above which it is closed with 4100 (resume) instead of buffering. */
  readonly highWaterMarkBytes: number;
  /**
   * Origins allowed to open a socket (exact `scheme://host[:port]`, or `*` for any). Requests
   * without an Origin (non-browser clients), from a loopback origin or from the server's own
   * origin are always allowed.
   */
  readonly allowedOrigins: readonly string[];
}

/** The defaults: protocol-level numbers from the live-activity issue. */
export const LIVE_DEFAULTS: LiveOptions = {
  initTimeoutMs: 3_000,
  maxMessageBytes: 64 * 1024,
  maxSubscriptionsPerSocket: 20,
  maxSubscriptionsPerOwner: 200,
  maxSocketsPerOwner: 100,
  keepAliveMs: 15_000,
  highWaterMarkBytes: 1024 * 1024,
  allowedOrigins: [],
};
