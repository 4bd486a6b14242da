import type { AdmissionCandidate } from '@agent-teams/core';
import { RETRY_CAP_MS, RetryBackoff } from './retry-backoff.js';

/**
 * Jobs whose own admission failed (`AdmissionJobError`), set aside with exponential backoff: the
 * passes plan without them until their time comes, so one broken job never holds back another
 * team's work, and a job that keeps failing is tried less and less often (as the job driver does
 * with a failing step).
 *
 * @remarks In memory, per server: a restart tries each at once again. An entry whose time passed
 * long ago belongs to a job no pass offered since (finished, cancelled or admitted by another
 * server): it is dropped.
 */
export class SetAsideJobs {
  readonly #backoff = new RetryBackoff();

  /** Sets `jobId` aside after a failure at `nowMs`; returns when it may be tried again. */
  failed(jobId: string, nowMs: number): number {
    return this.#backoff.failed(jobId, nowMs);
  }

  /** The candidates a pass at `nowMs` may plan with: every one not set aside now. */
  plannable(candidates: readonly AdmissionCandidate[], nowMs: number): readonly AdmissionCandidate[] {
    if (this.#backoff.size === 0) return candidates;
    this.#backoff.forgetStale(nowMs, RETRY_CAP_MS * 2);
    return candidates.filter((candidate) => (this.#backoff.notBefore(candidate.jobId) ?? 0) <= nowMs);
  }

  /** These jobs were admitted: their failures are forgotten. */
  admitted(jobIds: Iterable<string>): void {
    if (this.#backoff.size === 0) return;
    for (const jobId of jobIds) this.#backoff.succeeded(jobId);
  }

  /** How many jobs are set aside or remembered as failing. */
  get size(): number {
    return this.#backoff.size;
  }
}
