import type { AdmissionCandidate, Job, JobId, TeamId } from '@agent-teams/core';
import { type FreezeReads, freezeReadsFor } from './freeze-reads.js';
import { type LockedTeamJob, lockTeamIfFreeWithReads, lockTeamWithJob } from './team-job-lock.js';
import type { WriteScope } from './write-transaction.js';

/** A freeze's locked read sent ahead: a pass's (team and job) or a ride's (team if free, its own job as inserted). */
export type LockedAhead =
  | {
      readonly kind: 'pass';
      readonly jobId: JobId;
      readonly teamId: TeamId;
      readonly read: Promise<LockedTeamJob | undefined>;
    }
  | {
      readonly kind: 'ride';
      readonly job: Job;
      readonly teamId: TeamId;
      readonly read: ReturnType<typeof lockTeamIfFreeWithReads>;
    };

/**
 * The candidates a plan admits, in its order, within `slots` free slots: only candidates, once
 * each, so a planner bug never admits a blocked or finished job.
 */
export function admittedCandidates(
  admit: readonly JobId[],
  candidates: readonly AdmissionCandidate[],
  slots: number,
): AdmissionCandidate[] {
  const eligible = new Map<JobId, AdmissionCandidate>(candidates.map((candidate) => [candidate.jobId, candidate]));
  const admitted: AdmissionCandidate[] = [];
  for (const jobId of admit.slice(0, Math.max(0, slots))) {
    const candidate = eligible.get(jobId);
    if (candidate === undefined) continue;
    eligible.delete(jobId);
    admitted.push(candidate);
  }
  return admitted;
}

/** No read sent ahead (SQLite, a lone job). */
const NONE: ReadonlyMap<JobId, LockedAhead> = new Map();

/**
 * PostgreSQL: the locked reads of the jobs an admission is about to freeze, all sent before the
 * first answer (decision 0258), by job; the freezes then run one after the other as before, each
 * taking its read from here. A pass freezing k jobs waited k round trips for them, each holding
 * the planning lock every other server's admission waits for; now one.
 *
 * @remarks Each read runs on the server before the writes of the freezes before it. It sees what
 * it would have seen after them, because a freeze writes nothing another freeze of the same
 * admission reads: its job's row (each job is frozen once), its member's deliveries (one job per
 * conversation is admitted, and a member has one conversation: stopped at a repeated one), its
 * events (buffered until the admission ends, so no team row changes in between) and its records
 * (a freeze that appends one forgets the team's newest records, `WriteScope.recentRecords`, so
 * the next freeze of that team reads them again). So only the first job of each team asks for the
 * roster and the records (the others read what it noted), and the notes are made when each
 * freeze takes its read, in the freezes' order (`keepFreezeReads`). A ride's own jobs (`inserted`)
 * are read if their team is free; another job of a ride is left to its freeze, as before.
 * @param jobs the jobs to freeze, in the order they will be; `inserted`, a ride's own jobs.
 */
export function lockAhead(
  scope: WriteScope,
  jobs: readonly AdmissionCandidate[],
  inserted: ReadonlyMap<JobId, Job> | null,
): ReadonlyMap<JobId, LockedAhead> {
  if (scope.dialect !== 'postgres' || jobs.length < 2) return NONE;
  const ahead = new Map<JobId, LockedAhead>();
  const asked = new Set<TeamId>();
  const conversations = new Set<string>();
  for (const { jobId, teamId, conversationId } of jobs) {
    if (conversations.has(conversationId)) break;
    conversations.add(conversationId);
    const cached = freezeReadsFor(scope, teamId);
    const reads: FreezeReads = asked.has(teamId) ? { roster: false, records: false } : cached;
    // Marked asked even when no read is sent for this job (a ride's job not its own): its freeze,
    // before a later job of the team takes its read, may append a record, and records read
    // ahead of that append would then be noted after it, stale. The later job reads them fresh.
    asked.add(teamId);
    if (inserted === null) {
      const read = lockTeamWithJob(scope, teamId, jobId, reads);
      // Its freeze awaits it; one not reached (an earlier freeze failed) must not go unhandled.
      read.catch(() => undefined);
      ahead.set(jobId, { kind: 'pass', jobId, teamId, read });
      continue;
    }
    const job = inserted.get(jobId);
    if (job === undefined || job.memberId === null) continue;
    const read = lockTeamIfFreeWithReads(scope, teamId, job.memberId, reads);
    read.catch(() => undefined);
    ahead.set(jobId, { kind: 'ride', job, teamId, read });
  }
  return ahead;
}

/**
 * Waits until every read sent ahead answered; the first that failed, in the order sent, with its
 * job (undefined when none did).
 *
 * @remarks A read the server failed (a deadlock's victim, a lock or statement timeout) aborted
 * the transaction, so each statement after it fails as aborted (25P02), the earlier freezes'
 * writes too: the caller throws this one, blamed on its own job, before any freeze runs, as when
 * the reads went one by one and that job's read failed first. The writes of the freezes before it
 * would have been rolled back with the transaction either way.
 */
export async function answeredAhead(
  ahead: ReadonlyMap<JobId, LockedAhead>,
): Promise<{ readonly jobId: JobId; readonly teamId: TeamId; readonly error: unknown } | undefined> {
  if (ahead.size === 0) return undefined;
  const entries = [...ahead.entries()];
  const answers = await Promise.allSettled(entries.map(([, entry]) => entry.read));
  for (const [index, answer] of answers.entries()) {
    const [jobId, { teamId }] = entries[index] as [JobId, LockedAhead];
    if (answer.status === 'rejected') return { jobId, teamId, error: answer.reason };
  }
  return undefined;
}
