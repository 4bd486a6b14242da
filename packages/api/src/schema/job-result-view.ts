import { isTerminal, type Job, JobPhase } from '@agent-teams/core';
import type { JobResultView } from './refs.js';

/** What a job cancelled before its input was frozen shows instead of an answer. */
export const CANCELLED_BEFORE_START = 'Cancelled before it started.';

/**
 * `Job.result` as clients see it: available only when the job finished with a retained answer.
 *
 * @remarks A job cancelled while still queued never ran, so it has no answer; it shows
 * {@link CANCELLED_BEFORE_START} (unless the core stored its own text for it) so the feed can say
 * why there is nothing, while `available` stays false.
 */
export function jobResultView(job: Job): JobResultView {
  if (isTerminal(job.phase) && job.result !== null) {
    return { available: job.phase !== JobPhase.CANCELLED, text: job.result.text, truncated: job.result.truncated };
  }
  if (job.phase === JobPhase.CANCELLED && job.startedAt === null) {
    return { available: false, text: CANCELLED_BEFORE_START, truncated: false };
  }
  return { available: false, text: null, truncated: null };
}
