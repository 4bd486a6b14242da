import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { MemberId } from '../model/ids.js';
import { JobKind, type JobView } from '../model/job.js';
import type { EnqueueDecision, EnqueueSnapshot } from '../ports/team-store.js';
import { decideRequests, type RequestPlan } from './request-decisions.js';

/** One hop of a chain as the loop rule compares it. */
export interface HandoffHop {
  readonly from: MemberId | null;
  readonly to: MemberId | null;
  readonly text: string;
}

/** The most jobs a chain walk visits: 12 requests and the receipts between them, with room to spare. */
export const MAX_CHAIN_WALK = 32;

/**
 * The request hops above a handoff's parent, nearest first: the parent itself when it is a
 * request, then each ancestor request reached through `parentId` (a receipt's parent is the
 * request it delivers, so a handoff sent from a receipt turn joins the original chain).
 */
export function chainHops(ancestors: readonly JobView[]): HandoffHop[] {
  return ancestors
    .filter((job) => job.kind === JobKind.REQUEST)
    .map((job) => ({ from: job.requester.memberId, to: job.memberId, text: job.text }));
}

/** True when `hop` repeats an ancestor's (from, to, text) exactly: the chain would ping-pong. */
export function repeatsAncestor(hop: HandoffHop, ancestors: readonly HandoffHop[]): boolean {
  return ancestors.some((a) => a.from === hop.from && a.to === hop.to && a.text === hop.text);
}

/**
 * Decides a `send_member` enqueue inside the store's transaction (pure).
 *
 * @remarks Order matters. Idempotency first: the caller's `request_id` already used by this
 * conversation answers the existing job when target and text are the same (even at capacity, even
 * if it would now look like a loop), and IDEMPOTENCY_CONFLICT when either differs. Then the loop
 * rule (HANDOFF_LOOP), then the team and chain budgets (REQUEST_LIMIT, see {@link decideRequests}).
 * The snapshot's `existing` must hold every job of the caller's key, whatever its target.
 * @throws DomainError IDEMPOTENCY_CONFLICT, HANDOFF_LOOP or REQUEST_LIMIT.
 */
export function decideHandoff(plan: RequestPlan, loops: boolean, snapshot: EnqueueSnapshot): EnqueueDecision {
  const recipient = plan.recipients[0];
  if (recipient === undefined || plan.recipients.length !== 1) {
    throw new Error('[agent-teams/core] a handoff has exactly one recipient');
  }
  const sameKey = snapshot.existing.filter(
    (job) => job.clientKey === plan.clientKey && job.requester.conversationId === plan.requester.conversationId,
  );
  const existing = sameKey[0];
  if (existing !== undefined) {
    if (existing.memberId !== recipient.memberId || existing.text !== plan.text) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This request_id was already used for another request.', {
        field: 'request_id',
      });
    }
    return { insert: [], resultIds: [existing.id] };
  }
  if (loops) {
    throw new DomainError(
      ErrorCode.HANDOFF_LOOP,
      'This chain already holds the same handoff (same sender, recipient and text): it would loop. Use the result you already have, change the task, or start a new request.',
      { field: 'text' },
    );
  }
  return decideRequests(plan, snapshot);
}
