import { cutUtf16 } from '@agent-teams/core';
import type { ModelRetry } from './chat-call.js';
import type { TurnEnv } from './turn-loop.js';

/** Longest provider reason a retry's log line carries (an error body may be 64 KiB). */
export const LOGGED_RETRY_REASON_CHARS = 500;

/**
 * What the call at `step` tells the log before it waits to try again (`ModelCall.retrying`): the
 * job, the attempt, the wait and the provider's reason (cut to {@link LOGGED_RETRY_REASON_CHARS}).
 *
 * @remarks Why: during a provider outage (429s, 5xx, refused connections) turns retried until
 * their deadline without a line in the log, so an operator saw jobs end `PROVIDER_UNAVAILABLE`
 * with nothing before. One line per retry: the waits double, so an outage writes a few per job.
 */
export function logRetry(env: TurnEnv, step: number): (retry: ModelRetry) => void {
  return (retry) =>
    env.logger.warn('model call failed; retrying', {
      teamId: env.teamId,
      jobId: env.jobId,
      runId: env.runId,
      step,
      attempt: retry.attempt,
      retryInMs: retry.delayMs,
      reason: loggedReason(retry.reason),
    });
}

/** `reason` cut to {@link LOGGED_RETRY_REASON_CHARS} UTF-16 units and `…`, never inside a surrogate pair. */
export function loggedReason(reason: string): string {
  return reason.length <= LOGGED_RETRY_REASON_CHARS ? reason : `${cutUtf16(reason, LOGGED_RETRY_REASON_CHARS)}…`;
}
