import { ACTIVE_PHASES, type CommittedRows, type Job, type JobId, type TeamEvent } from '@agent-teams/core';

/** At most this many jobs are remembered; past it the oldest note is forgotten (a read replaces it). */
export const KNOWN_JOBS_MAX = 4_096;

/**
 * The active jobs exactly as the last local commit that named them stored them, so a job step
 * need not read its job back (the step after a run's `settled` notice sat on the path from the
 * model's last chunk to the completion's commit; decision 0240).
 *
 * @remarks Exact only where every write of a job is a local commit published here with its rows:
 * a server alone on its database (SQLite, `ServerLease` `exclusive`). There every change of a
 * job's state is a transition that notes the job as stored and logs a JOB_CHANGED naming it
 * (`storage/job-writes.ts`); leases are not part of a `Job`. An event that names a job its commit
 * did not note (a row not stored as given, an inserted receipt) drops the note, and so does a job
 * that left the active phases or whose step failed: the step then reads it, as before.
 * Every write a step makes still checks its guard against the row it reads under the team lock.
 */
export class KnownJobs {
  readonly #jobs = new Map<JobId, Job>();

  /** Takes in one local commit's events and the rows it wrote (`EventSink.published`). */
  heard(events: readonly TeamEvent[], rows: CommittedRows | undefined): void {
    for (const event of events) {
      const jobId = event.jobId;
      if (jobId === null) continue;
      // The commit's note of the job, whichever of its events names it (a MESSAGE_DELIVERED
      // follows its turn's JOB_CHANGED); an event naming a job the commit did not note drops it.
      const stored = rows?.jobs.get(jobId);
      // Delete first: a note set again moves to the newest end of the map (oldest forgotten first).
      this.#jobs.delete(jobId);
      if (stored === undefined || !ACTIVE_PHASES.includes(stored.phase)) continue;
      this.#jobs.set(jobId, stored);
      if (this.#jobs.size > KNOWN_JOBS_MAX) this.#jobs.delete(this.#jobs.keys().next().value as JobId);
    }
  }

  /**
   * Forgets a job whose step failed: a write that failed (a log sync that failed after its COMMIT
   * included, whose commit is visible but never published) may have left the note behind the row,
   * so the retry reads it.
   */
  drop(jobId: JobId): void {
    this.#jobs.delete(jobId);
  }

  /** The job as its last local commit stored it, if it is known and active. */
  get(jobId: JobId): Job | undefined {
    return this.#jobs.get(jobId);
  }

  /** How many jobs are known (tests, bounds). */
  get size(): number {
    return this.#jobs.size;
  }
}
