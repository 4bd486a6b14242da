import {
  type EnqueueRequestsArgs,
  type Job,
  type JobId,
  queuedRequest,
  RecordKind,
  TeamEventKind,
} from '@agent-teams/core';
import { readEnqueueSnapshot } from './enqueue-snapshot.js';
import { insertJobReturning } from './job-row-writes.js';
import { pgHeld } from './pg-held-connection.js';
import { appendRecord } from './record-writes.js';
import type { WriteScope } from './write-transaction.js';

/**
 * Loads the snapshot under the team lock, asks `decide`, and inserts the decided requests.
 * @param inserted given, receives each job inserted here, as it now reads.
 */
export async function enqueueRequests(scope: WriteScope, args: EnqueueRequestsArgs, inserted?: Job[]): Promise<Job[]> {
  // The snapshot's reads go behind the lock, before its answer (`readEnqueueSnapshot`).
  const snapshot = await readEnqueueSnapshot(scope, scope.lockOwnedTeam(args.owner, args.teamId), args);
  const decision = args.decide(snapshot);
  // The jobs answered: those inserted here as they now read (`insertJobReturning`), and the
  // existing ones of repeated keys as the snapshot read them in this transaction.
  const answered = new Map<JobId, Job>(snapshot.existing.map((job) => [job.id, job]));
  const held = pgHeld(scope.trx);
  const stored: Job[] = [];
  for (const [i, request] of decision.insert.entries()) {
    const job = queuedRequest(request, { id: args.teamId, owner: args.owner }, scope.now);
    const storing = insertJobReturning(scope.trx, scope.dialect, job, scope.now);
    // PostgreSQL: its answer (the seq) is read below, once every insert was sent: this one's record
    // and the next request's insert follow it on the wire (decision 0255).
    if (held === undefined) stored[i] = await storing;
    else
      held.defer(storing, (answer) => {
        stored[i] = answer;
      });
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
  // Every insert's answer, in the order sent; the first failure is thrown (a key another server
  // inserted first: a unique violation, which the caller's retry reads as an existing job).
  if (held !== undefined && decision.insert.length > 0) await held.settle();
  for (const job of stored) {
    answered.set(job.id, job);
    inserted?.push(job);
    scope.events.rows.noteJob(job);
  }
  return decision.resultIds.map((id) => {
    const job = answered.get(id);
    if (job === undefined) throw new Error(`[agent-teams/api] enqueue decided on a missing job ${id}`);
    return job;
  });
}
