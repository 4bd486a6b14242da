import {
  followUpAfterDroppedTurn,
  isTerminal,
  type Job,
  JobPhase,
  MessageDelivery,
  messageTurnKey,
  TeamEventKind,
  type TeamMessage,
  TeamStatus,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { insertJob } from './job-row-writes.js';
import { literalPhase } from './literal-phase.js';
import { undeliveredMessages } from './mailbox.js';
import type { WriteScope } from './write-transaction.js';

/**
 * After a step that ended a job still QUEUED (cancelled or failed before it started), queues the
 * MESSAGE turn a pending follow-up of its member was counting on (`followUpAfterDroppedTurn`),
 * in the same transaction.
 */
export async function keepFollowUp(scope: WriteScope, before: Job, after: Job): Promise<void> {
  // Only a job that ends while still QUEUED can drop a promised turn (admission moves it on, not out).
  if (before.phase !== JobPhase.QUEUED || !isTerminal(after.phase) || after.memberId === null) return;
  const mailbox = await undeliveredMessages(scope.trx, after.memberId);
  // The common case, no follow-up waiting, reads nothing more.
  if (!mailbox.some((message) => message.delivery === MessageDelivery.FOLLOW_UP)) return;
  const queued = await scope.trx
    .selectFrom('jobs')
    .select('id')
    .where('conversation_id', '=', after.conversationId)
    .where('unfinished', '=', UNFINISHED)
    .where('phase', '=', literalPhase(JobPhase.QUEUED))
    .executeTakeFirst();
  const recipient = await scope.trx
    .selectFrom('members')
    .innerJoin('teams', 'teams.id', 'members.team_id')
    .select(['teams.status as status', 'members.retired_at as retiredAt'])
    .where('members.id', '=', after.memberId)
    .executeTakeFirst();
  const job = followUpAfterDroppedTurn(before, after, {
    mailbox,
    otherTurnQueued: queued !== undefined,
    ownTurns: await messagesWithOwnTurn(scope.trx, after, mailbox),
    recipientOpen: recipient?.status === TeamStatus.READY && recipient.retiredAt === null,
    now: scope.now,
  });
  if (job === null) return;
  const existing = await scope.trx.selectFrom('jobs').select('id').where('id', '=', job.id).executeTakeFirst();
  if (existing !== undefined) return;
  await insertJob(scope.trx, job, scope.now);
  await scope.events.emit(job.teamId, TeamEventKind.JOB_CHANGED, { jobId: job.id });
}

/**
 * Of `mailbox`'s follow-ups, those that already had a MESSAGE turn of their own for `job`'s
 * member (a job under `messageTurnKey`; a MESSAGE job asks for no receipt, so its requester key is
 * empty): one point search of the idempotency index.
 */
async function messagesWithOwnTurn(
  db: Kysely<Database>,
  job: Job,
  mailbox: readonly TeamMessage[],
): Promise<ReadonlySet<string>> {
  const followUps = mailbox.filter((message) => message.delivery === MessageDelivery.FOLLOW_UP);
  if (followUps.length === 0 || job.memberId === null) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('client_key')
    .where('team_id', '=', job.teamId)
    .where('requester_key', '=', '')
    .where(
      'client_key',
      'in',
      followUps.map((message) => messageTurnKey(message.id)),
    )
    .where('member_id', '=', job.memberId)
    .execute();
  const taken = new Set(rows.map((row) => row.client_key));
  return new Set(followUps.filter((message) => taken.has(messageTurnKey(message.id))).map((message) => message.id));
}
