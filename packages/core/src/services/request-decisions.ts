import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { ConversationId, JobId, MemberId, RecordId } from '../model/ids.js';
import type { Job, Requester } from '../model/job.js';
import { TeamStatus } from '../model/team.js';
import type { EnqueueDecision, EnqueueSnapshot, NewRequest } from '../ports/team-store.js';

/** One recipient of a send, with the ids its request would get if it is new (minted up front). */
export interface RequestRecipient {
  readonly memberId: MemberId;
  readonly conversationId: ConversationId;
  readonly jobId: JobId;
  readonly recordId: RecordId;
}

/** Everything a send decides on besides the store's snapshot. */
export interface RequestPlan {
  readonly recipients: readonly RequestRecipient[];
  /** Trimmed task text. */
  readonly text: string;
  /** The idempotency key (`clientRequestId`, or a member's `request_id`). */
  readonly clientKey: string;
  readonly requester: Requester;
  /** The parent job and chain root of a handoff; null when the send starts new chains. */
  readonly chain: { readonly parentId: JobId; readonly rootId: JobId } | null;
}

/** True when `job` answers the recipient's idempotency key. */
function sameKey(job: Job, plan: RequestPlan, recipient: RequestRecipient): boolean {
  return (
    job.clientKey === plan.clientKey &&
    job.memberId === recipient.memberId &&
    job.requester.conversationId === plan.requester.conversationId
  );
}

/**
 * REQUEST_LIMIT with what the scope holds and what the send would add: a send to several members
 * adds one request each, so it can be refused below the limit, and saying "holds 100" then was wrong.
 */
function limitReached(scope: 'team' | 'chain', limit: number, held: number, adding: number): DomainError {
  const what = scope === 'team' ? 'This team' : 'This handoff chain';
  const room = Math.max(0, limit - held);
  return new DomainError(
    ErrorCode.REQUEST_LIMIT,
    `${what} holds ${held} of its ${limit} requests; this send would add ${adding} (room for ${room}). Send to fewer members, or start a new team (or a new request) to continue.`,
    { scope, limit, held, adding },
  );
}

/**
 * Decides an enqueue inside the store's transaction (pure).
 *
 * @remarks Idempotency comes first: a recipient whose key already has a job with the same text
 * reuses it, even when the team is full (a retry must not fail because its first attempt
 * succeeded); other text under the same key is IDEMPOTENCY_CONFLICT. The new requests must all
 * fit the team budget and, for a handoff, the chain budget; otherwise nothing is inserted.
 * @throws DomainError IDEMPOTENCY_CONFLICT, TEAM_CLOSED or REQUEST_LIMIT.
 */
export function decideRequests(plan: RequestPlan, snapshot: EnqueueSnapshot): EnqueueDecision {
  const insert: NewRequest[] = [];
  const resultIds: JobId[] = [];
  for (const recipient of plan.recipients) {
    const existing = snapshot.existing.find((job) => sameKey(job, plan, recipient));
    if (existing !== undefined) {
      if (existing.text !== plan.text) {
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This request id was already used for another request.', {
          field: 'clientRequestId',
        });
      }
      resultIds.push(existing.id);
      continue;
    }
    // Checked under the team lock, so a send racing a close never slips in (a retry still answers).
    if (snapshot.team.status === TeamStatus.CLOSED) {
      throw new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed; it accepts no new requests.');
    }
    insert.push({
      id: recipient.jobId,
      recordId: recipient.recordId,
      memberId: recipient.memberId,
      conversationId: recipient.conversationId,
      requester: plan.requester,
      parentId: plan.chain?.parentId ?? null,
      rootId: plan.chain?.rootId ?? recipient.jobId,
      clientKey: plan.clientKey,
      text: plan.text,
    });
    resultIds.push(recipient.jobId);
  }
  if (insert.length === 0) return { insert, resultIds };
  if (snapshot.requestCount + insert.length > Limits.requestsPerTeam)
    throw limitReached('team', Limits.requestsPerTeam, snapshot.requestCount, insert.length);
  if (plan.chain !== null) {
    const inChain = snapshot.chainCounts.get(plan.chain.rootId) ?? 0;
    if (inChain + insert.length > Limits.requestsPerChain)
      throw limitReached('chain', Limits.requestsPerChain, inChain, insert.length);
  }
  return { insert, resultIds };
}
