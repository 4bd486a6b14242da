import type { OwnerId, TeamId } from '../model/ids.js';
import { type Job, JobKind, JobPhase, UNADMITTED } from '../model/job.js';
import type { TeamMessage } from '../model/team-message.js';
import type { NewRequest } from '../ports/store/job-writes.js';
import type { NewMessageJob } from '../ports/store/mailbox.js';
import type { NewReceipt } from './job-commands.js';

/** A job as a store inserts it: everything but the `seq` the store assigns. */
export type NewJob = Omit<Job, 'seq'>;

/** The QUEUED request job a decided {@link NewRequest} becomes, in `team`. */
export function queuedRequest(
  request: NewRequest,
  team: { readonly id: TeamId; readonly owner: OwnerId },
  now: string,
): NewJob {
  return {
    id: request.id,
    teamId: team.id,
    owner: team.owner,
    kind: JobKind.REQUEST,
    phase: JobPhase.QUEUED,
    memberId: request.memberId,
    conversationId: request.conversationId,
    requester: request.requester,
    parentId: request.parentId,
    rootId: request.rootId,
    clientKey: request.clientKey,
    text: request.text,
    createdAt: now,
    updatedAt: now,
    // Last, never first: see UNADMITTED.
    ...UNADMITTED,
  };
}

/**
 * The QUEUED receipt that delivers `request`'s outcome back to its requester.
 *
 * @remarks Nobody "asked" for a receipt, so its requester is empty; who did the work is in its
 * text and its parent. It stays in the request's chain, and its client key makes it unique per
 * request.
 */
export function queuedReceipt(receipt: NewReceipt, request: Job, now: string): NewJob {
  return {
    id: receipt.id,
    teamId: request.teamId,
    owner: request.owner,
    kind: JobKind.RECEIPT,
    phase: JobPhase.QUEUED,
    memberId: receipt.memberId,
    conversationId: receipt.conversationId,
    requester: { memberId: null, conversationId: null },
    parentId: request.id,
    rootId: request.rootId,
    clientKey: `receipt:${request.id}`,
    text: receipt.text,
    createdAt: now,
    updatedAt: now,
    // Last, never first: see UNADMITTED.
    ...UNADMITTED,
  };
}

/** The idempotency key of a message's own MESSAGE turn (one per message and recipient). */
export function messageTurnKey(messageId: string): string {
  return `message:${messageId}`;
}

/**
 * The QUEUED MESSAGE job a follow-up queues in a recipient's conversation: a turn that exists to
 * deliver the mailbox (its messages are attached when it starts, like any turn's).
 *
 * @remarks Its client key names the message that queued it, so it is unique per (message,
 * recipient); its text is that message's, for lists that show a job's text. It starts its own
 * chain and asks for no receipt (only a member's REQUEST gets one).
 */
export function queuedMessageJob(
  job: NewMessageJob,
  message: Pick<TeamMessage, 'id' | 'fromMemberId' | 'text'>,
  team: { readonly id: TeamId; readonly owner: OwnerId },
  now: string,
): NewJob {
  return {
    id: job.id,
    teamId: team.id,
    owner: team.owner,
    kind: JobKind.MESSAGE,
    phase: JobPhase.QUEUED,
    memberId: job.memberId,
    conversationId: job.conversationId,
    requester: { memberId: message.fromMemberId, conversationId: null },
    parentId: null,
    rootId: job.id,
    clientKey: messageTurnKey(message.id),
    text: message.text,
    createdAt: now,
    updatedAt: now,
    // Last, never first: see UNADMITTED.
    ...UNADMITTED,
  };
}
