import { broadcastReceipt, isBroadcastRequest, isTerminal, type Job, TeamEventKind } from '@agent-teams/core';
import { insertJob } from './job-row-writes.js';
import { REQUEST_KIND } from './literal-kind.js';
import { toJob } from './row-mappers.js';
import { listMembers } from './team-reads.js';
import type { WriteScope } from './write-transaction.js';

/**
 * Adds a broadcast's one BROADCAST_RECEIPT when `job`, one of its requests, just finished and it
 * was the last unfinished one; in the transaction of that step, under the team lock, so two
 * requests finishing at once on two servers serialize and exactly one of them adds the receipt.
 */
export async function completeBroadcast(scope: WriteScope, job: Job): Promise<void> {
  if (!isBroadcastRequest(job) || !isTerminal(job.phase)) return;
  const rows = await scope.trx
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', job.teamId)
    .where('requester_key', '=', job.requester.conversationId ?? '')
    .where('client_key', '=', job.clientKey)
    // A literal: bound, the kind would re-plan the read at every run (`literal-kind.ts`).
    .where('kind', '=', REQUEST_KIND)
    .execute();
  const receipt = broadcastReceipt(rows.map(toJob), await listMembers(scope.trx, [job.teamId]), scope.now);
  if (receipt === null) return;
  const existing = await scope.trx.selectFrom('jobs').select('id').where('id', '=', receipt.id).executeTakeFirst();
  if (existing !== undefined) return;
  await insertJob(scope.trx, receipt, scope.now);
  await scope.events.emit(job.teamId, TeamEventKind.JOB_CHANGED, { jobId: receipt.id });
  if (receipt.memberId !== null) {
    await scope.events.emit(job.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: receipt.memberId });
  }
}
