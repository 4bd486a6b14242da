import { createHash } from 'node:crypto';
import { validateClientRequestId } from '@agent-teams/core';

/** The prefix of a {@link callKey} that had to be hashed to fit. */
export const HASHED_CALL_KEY_PREFIX = 'rk_';

/**
 * The idempotency key a runtime derives for one tool call of a run (a `request_id`, a
 * `message_id`, a question's or a wait's request id): `<runKey>:<callId>` when that is a valid
 * `clientRequestId`, else `rk_` and the base64url SHA-256 of it (46 characters).
 *
 * @remarks The same run and call always give the same key, so a call replayed after a crash is
 * recognised. The plain form stays whenever it fits, so keys derived before this existed still
 * match. It does not always fit: a wait's run key names the wait's request id, which names the
 * run key of the turn before it (`freeze-job.ts`), so each `wait_for_change` in one job made the
 * keys of the later calls longer, and after two waits (OpenAI's call ids are 29 characters) a key
 * passed the 128-character limit and every keyed tool call of the turn was refused INVALID_INPUT,
 * on an argument the model is not even offered. A provider's call id holding what a key may not
 * (U+0000, a lone surrogate) is hashed the same way.
 */
export function callKey(runKey: string, callId: string): string {
  const key = `${runKey}:${callId}`;
  try {
    return validateClientRequestId(key);
  } catch {
    return `${HASHED_CALL_KEY_PREFIX}${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
  }
}
