import {
  type EnqueueRequestsArgs,
  type Job,
  type JobId,
  JobPhase,
  queuedRequest,
  RecordKind,
  TeamEventKind,
} from '@agent-teams/core';
import { readEnqueueSnapshot } from './enqueue-snapshot.js';
import { insertJobReturning } from './job-row-writes.js';
import { pgHeld } from './pg-held-connection.js';
import { appendRecord } from './record-writes.js';
import type { WriteScope } from './write-transaction.js';

/** An enqueue whose statements are sent (see {@link sendEnqueue}). */
export interface SentEnqueue {
  /** Whether a job it answers waits for a slot: known before the inserts' answers (an insert is QUEUED). */
  readonly queued: boolean;
  /**
   * The jobs it answers, in the order decided, once every insert answered (PostgreSQL: once the
   * transaction committed, or once {@link inserted} resolved). Throws if a job it inserted has not
   * answered yet.
   */
  answered(): Job[];
  /** The jobs it inserted, as they now read, once every insert answered. */
  inserted(): Promise<Job[]>;
}

/**
 * Loads the snapshot under the team lock, asks `decide`, and sends the decided requests' inserts,
 * their records and events; what the inserts answer (each job's `seq`) is read by
 * {@link SentEnqueue.answered} and {@link SentEnqueue.inserted}.
 *
 * @remarks PostgreSQL: the inserts are sent and left (decision 0255), and not waited for here, so
 * a riding admission's first statements follow them on the wire, and their answers come with the
 * planning lock's (decision 0257). An insert that failed (a key another server inserted first: a
 * unique violation) aborted the transaction: the statements after it fail, and the first failure
 * in the order sent is what the write fails with (`PgHeldConnection.firstFailure`), retried by the
 * caller, whose retry reads the twin as an existing job. SQLite awaits each insert.
 */
export async function sendEnqueue(scope: WriteScope, args: EnqueueRequestsArgs): Promise<SentEnqueue> {
  // The snapshot's reads go behind the lock, before its answer (`readEnqueueSnapshot`).
  const snapshot = await readEnqueueSnapshot(scope, scope.lockOwnedTeam(args.owner, args.teamId), args);
  const decision = args.decide(snapshot);
  const existing = new Map<JobId, Job>(snapshot.existing.map((job) => [job.id, job]));
  // Checked before anything is written: the jobs are read only once the write committed.
  const inserting = new Set<JobId>(decision.insert.map((request) => request.id));
  for (const id of decision.resultIds) {
    if (!existing.has(id) && !inserting.has(id)) {
      throw new Error(`[agent-teams/api] enqueue decided on a missing job ${id}`);
    }
  }
  const held = pgHeld(scope.trx);
  // Their notes belong before any savepoint a ride takes after this (`noteAsOf`).
  const sentAt = scope.events.rows.epoch();
  const storing: Promise<Job>[] = [];
  // Each inserted job as its insert answered (its seq), by id.
  const stored = new Map<JobId, Job>();
  const noteJob = (job: Job) => {
    stored.set(job.id, job);
    scope.events.rows.noteAsOf(sentAt, () => scope.events.rows.noteJob(job));
  };
  for (const request of decision.insert) {
    const job = queuedRequest(request, { id: args.teamId, owner: args.owner }, scope.now);
    const insert = insertJobReturning(scope.trx, scope.dialect, job, scope.now);
    // PostgreSQL: left, and noted when it answers (before `answered` reads it: the note is the
    // answer's first reaction). Left as checked by the server, so the COMMIT need not wait for
    // it: an insert that succeeded returns its seq. Only a trigger that dropped the row would
    // make `insertJobReturning` fail after the COMMIT, the request then reported failed though
    // committed, and found as existing when sent again with its key (record inserts alike).
    if (held === undefined) noteJob(await insert);
    else held.defer(insert, noteJob, true);
    storing.push(insert);
    await scope.events.emit(args.teamId, TeamEventKind.JOB_CHANGED, { jobId: job.id });
    await appendRecord(scope, {
      id: request.recordId,
      teamId: args.teamId,
      kind: RecordKind.REQUEST,
      jobId: job.id,
      memberId: request.memberId,
      fromMemberId: request.requester.memberId,
      text: request.text,
      truncated: false,
    });
    await scope.events.emit(args.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: request.memberId });
  }
  let settled: Promise<Job[]> | null = null;
  // Every insert's answer, in the order sent; the first failure is thrown.
  const inserted = () => {
    if (settled === null) {
      settled = Promise.allSettled(storing).then((answers) =>
        answers.map((answer) => {
          if (answer.status === 'rejected') throw answer.reason;
          return answer.value;
        }),
      );
      // Its caller sees the failure; none is left unhandled when a caller stops listening.
      settled.catch(() => undefined);
    }
    return settled;
  };
  return {
    // An insert is QUEUED (`queuedRequest`); a repeated key answers its stored job as it stands.
    queued: decision.resultIds.some((id) => (existing.get(id)?.phase ?? JobPhase.QUEUED) === JobPhase.QUEUED),
    inserted,
    answered() {
      return decision.resultIds.map((id) => {
        const job = stored.get(id) ?? existing.get(id);
        if (job === undefined) throw new Error(`[agent-teams/api] job ${id} was read before its insert answered`);
        return job;
      });
    },
  };
}
