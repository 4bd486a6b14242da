import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { type NewJob, queuedMessageJob } from '../jobs/new-jobs.js';
import { Limits } from '../limits/limits.js';
import type { JobId, MemberId, MessageId } from '../model/ids.js';
import { isTerminal, type Job, JobPhase } from '../model/job.js';
import { TeamStatus } from '../model/team.js';
import { MessageDelivery, type TeamMessage } from '../model/team-message.js';
import type { MailboxDecision, MailboxSnapshot, NewMessageJob } from '../ports/store/mailbox.js';

/** Everything a send decides on besides the store's snapshot (ids minted up front). */
export interface MessagePlan {
  readonly id: MessageId;
  readonly senderId: MemberId | null;
  readonly key: string;
  /** Distinct recipients, in the sender's order. */
  readonly recipientIds: readonly MemberId[];
  /** Trimmed text. */
  readonly text: string;
  readonly delivery: MessageDelivery;
  /** The id of each recipient's MESSAGE job, should a follow-up need one. */
  readonly jobIds: ReadonlyMap<MemberId, JobId>;
  readonly now: string;
}

/** True when a stored message answers the plan's retry: same recipients, text and delivery. */
function sameMessage(message: TeamMessage, plan: MessagePlan): boolean {
  return (
    message.text === plan.text &&
    message.delivery === plan.delivery &&
    message.recipientIds.length === plan.recipientIds.length &&
    message.recipientIds.every((id, index) => plan.recipientIds[index] === id)
  );
}

/**
 * Decides a send inside the store's transaction (pure).
 *
 * @remarks Idempotency comes first, as for requests: a retry of a stored message changes nothing
 * even when a mailbox has filled or the team closed since (its first attempt succeeded); another
 * message under the same key is IDEMPOTENCY_CONFLICT. Then the team must be open and every
 * recipient active with room in its mailbox; otherwise nothing is written. A follow-up queues a
 * MESSAGE job only for recipients with no turn queued: a queued turn takes the message anyway.
 * @throws DomainError IDEMPOTENCY_CONFLICT, TEAM_CLOSED, NOT_FOUND, MEMBER_RETIRED, MAILBOX_FULL.
 */
export function decideMessage(plan: MessagePlan, snapshot: MailboxSnapshot): MailboxDecision {
  if (snapshot.existing !== null) {
    if (!sameMessage(snapshot.existing.message, plan)) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This message id was already used for another message.', {
        field: 'message_id',
      });
    }
    return { insert: null, followUps: [] };
  }
  if (snapshot.team.status === TeamStatus.CLOSED) {
    throw new DomainError(ErrorCode.TEAM_CLOSED, 'This team is closed: it accepts no new messages.');
  }
  const followUps: NewMessageJob[] = [];
  for (const recipientId of plan.recipientIds) {
    const member = snapshot.members.find((m) => m.id === recipientId);
    if (member === undefined)
      throw new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field: 'to' });
    if (member.retiredAt !== null) {
      throw new DomainError(ErrorCode.MEMBER_RETIRED, `${member.name} was retired and can no longer be messaged.`, {
        field: 'to',
        member: member.name,
      });
    }
    if ((snapshot.undelivered.get(recipientId) ?? 0) >= Limits.mailboxUndelivered) {
      throw new DomainError(
        ErrorCode.MAILBOX_FULL,
        `${member.name} already holds ${Limits.mailboxUndelivered} undelivered messages.`,
        { field: 'to', member: member.name, limit: Limits.mailboxUndelivered },
      );
    }
    const jobId = plan.jobIds.get(recipientId);
    if (plan.delivery === MessageDelivery.FOLLOW_UP && !snapshot.queuedTurn.has(recipientId) && jobId !== undefined) {
      followUps.push({ id: jobId, memberId: member.id, conversationId: member.conversationId });
    }
  }
  const insert = {
    id: plan.id,
    teamId: snapshot.team.id,
    fromMemberId: plan.senderId,
    recipientIds: plan.recipientIds,
    key: plan.key,
    text: plan.text,
    delivery: plan.delivery,
    createdAt: plan.now,
  };
  return { insert, followUps };
}

/** What {@link followUpAfterDroppedTurn} weighs besides the step itself. */
export interface DroppedTurnContext {
  /** The member's undelivered messages, oldest first. */
  readonly mailbox: readonly TeamMessage[];
  /** Another turn of the member is queued (it will take the messages). */
  readonly otherTurnQueued: boolean;
  /**
   * The undelivered messages that already had a MESSAGE turn of their own (a job under their key,
   * `messageTurnKey`), whatever became of it.
   */
  readonly ownTurns: ReadonlySet<string>;
  /** The team is READY and the member not retired: a new turn could run. */
  readonly recipientOpen: boolean;
  readonly now: string;
}

/**
 * The MESSAGE job that keeps a follow-up's promise when the queued turn it joined ends without
 * starting (cancelled or failed while QUEUED): when the member still holds an undelivered
 * follow-up and no other turn is queued, a turn must still follow. Null otherwise.
 *
 * @remarks Its id derives from the dropped job's, so a second look at the same step adds nothing.
 * A follow-up whose own turn was dropped gets none again: a person cancelled that very turn, or it
 * failed before starting and would fail again; the message stays in the mailbox for the member's
 * next turn, as a quiet one would. (Its key is the dropped turn's too: a second job under it was
 * refused by the unique index, which failed the cancel, or the admission pass, for good.) A closed
 * team or a retired member gets no new turn either: closing and retiring drop the queued turns.
 */
export function followUpAfterDroppedTurn(before: Job, after: Job, context: DroppedTurnContext): NewJob | null {
  if (before.phase !== JobPhase.QUEUED || !isTerminal(after.phase) || after.memberId === null) return null;
  if (context.otherTurnQueued || !context.recipientOpen) return null;
  const pending = context.mailbox.find(
    (message) => message.delivery === MessageDelivery.FOLLOW_UP && !context.ownTurns.has(message.id),
  );
  if (pending === undefined) return null;
  const job = { id: `${after.id}_follow_up` as JobId, memberId: after.memberId, conversationId: after.conversationId };
  return queuedMessageJob(job, pending, { id: after.teamId, owner: after.owner }, context.now);
}
