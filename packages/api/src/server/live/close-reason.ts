import { truncateUtf8 } from '@agent-teams/core';

/** The most bytes a WebSocket close reason may hold (RFC 6455 §5.5: 125 minus the 2-byte code). */
export const MAX_CLOSE_REASON_BYTES = 123;

/**
 * `reason` cut to fit a close frame: at most 123 UTF-8 bytes, at a character boundary.
 *
 * @remarks `ws` throws a RangeError for a longer reason, and a throw inside a message handler
 * would take the process down, so every close goes through here. Reasons are the server's own
 * constant texts; client data is never put in them.
 */
export function closeReason(reason: string): string {
  return truncateUtf8(reason, MAX_CLOSE_REASON_BYTES).text;
}
