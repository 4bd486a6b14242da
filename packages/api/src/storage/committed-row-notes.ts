import type { CommittedRows, Job, JobId, RecordId, RecordMessage } from '@agent-teams/core';

/**
 * The rows a write transaction stored and knows exactly, published with its events after COMMIT
 * (`CommittedRows`), so the live feeds render a local commit's events without reading them back.
 *
 * @remarks Every write of a job's columns goes through `job-writes.ts`, which notes the job as it
 * stored it; a record message is noted once appended and never changes. Notes taken in work
 * rolled back to a savepoint are dropped with it ({@link mark}).
 */
export class CommittedRowNotes implements CommittedRows {
  readonly jobs = new Map<JobId, Job>();
  readonly records = new Map<RecordId, RecordMessage>();

  /**
   * Notes a job as this transaction stored it (its last write wins). A job with text the database
   * does not store as given (a lone surrogate, stored as U+FFFD) is not noted, and an earlier note
   * of it is dropped: its views read it back.
   */
  noteJob(job: Job): void {
    if (storedAsGiven(job)) this.jobs.set(job.id, job);
    else this.jobs.delete(job.id);
  }

  /** Notes a record message as this transaction appended it (unless stored otherwise, as above). */
  noteRecord(record: RecordMessage): void {
    if (!LONE_SURROGATE.test(record.text)) this.records.set(record.id, record);
  }

  /** Remembers the notes now; the returned function drops every note taken since. */
  mark(): () => void {
    const jobs = new Map(this.jobs);
    const records = new Map(this.records);
    return () => {
      this.jobs.clear();
      for (const [jobId, job] of jobs) this.jobs.set(jobId, job);
      this.records.clear();
      for (const [recordId, record] of records) this.records.set(recordId, record);
    };
  }
}

/** A UTF-16 surrogate without its pair: not storable as UTF-8, so each engine replaces it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** True unless a text column of the job holds a lone surrogate (its JSON columns keep escapes). */
function storedAsGiven(job: Job): boolean {
  for (const value of Object.values(job)) if (typeof value === 'string' && LONE_SURROGATE.test(value)) return false;
  return job.result === null || !LONE_SURROGATE.test(job.result.text);
}
