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

  /** Notes a job as this transaction stored it (its last write wins). */
  noteJob(job: Job): void {
    this.jobs.set(job.id, job);
  }

  /** Notes a record message as this transaction appended it. */
  noteRecord(record: RecordMessage): void {
    this.records.set(record.id, record);
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
