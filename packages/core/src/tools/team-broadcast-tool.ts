import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { BROADCAST_KEY_PREFIX } from '../jobs/broadcast.js';
import { Limits } from '../limits/limits.js';
import type { JobId } from '../model/ids.js';
import { TeamStatus } from '../model/team.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobReads, JobWrites } from '../ports/team-store.js';
import type { UsesStore } from '../services/core-types.js';
import { executingJob, type ToolCaller } from '../services/handoff-service.js';
import { decideRequests, type RequestPlan } from '../services/request-decisions.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';

/**
 * `team_broadcast`: one request to every other active member, in parallel, in the caller's chain
 * (counted against the chain and team limits like that many requests), idempotent by
 * `request_id`. Their outcomes come back together in one BROADCAST_RECEIPT turn once all have
 * finished (the store adds it; see `jobs/broadcast.ts`).
 * @throws DomainError INVALID_INPUT, TEAM_CLOSED, IDEMPOTENCY_CONFLICT, REQUEST_LIMIT.
 */
export async function teamBroadcast(
  deps: UsesStore<JobReads & JobWrites>,
  caller: ToolCaller,
  args: Readonly<Record<string, unknown>>,
): Promise<{ readonly ids: readonly JobId[] }> {
  const text = validateText('text', args.text, Limits.taskText);
  const clientKey = `${BROADCAST_KEY_PREFIX}${validateClientRequestId(args.request_id, 'request_id')}`;
  if (caller.team.status === TeamStatus.CLOSED) {
    throw new DomainError(ErrorCode.TEAM_CLOSED, 'This team is closed: it accepts no new requests.');
  }
  const others = caller.roster.filter((m) => m.id !== caller.member.id && m.retiredAt === null);
  if (others.length === 0) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'There is no other active member to broadcast to.', {
      field: 'text',
    });
  }
  const parent = await executingJob(deps, caller);
  const requester = { memberId: caller.member.id, conversationId: caller.member.conversationId };
  const plan: RequestPlan = {
    recipients: others.map((m) => ({
      memberId: m.id,
      conversationId: m.conversationId,
      jobId: deps.ids.jobId(),
      recordId: deps.ids.recordId(),
    })),
    text,
    clientKey,
    requester,
    chain: parent === null ? null : { parentId: parent.id, rootId: parent.rootId },
  };
  const jobs = await deps.store.enqueueRequests({
    owner: caller.team.owner,
    teamId: caller.team.id,
    keys: others.map((m) => ({ requesterConversationId: requester.conversationId, clientKey, memberId: m.id })),
    roots: parent === null ? [] : [parent.rootId],
    now: nowTimestamp(deps.clock),
    decide: (snapshot) => decideRequests(plan, snapshot),
  });
  return { ids: jobs.map((job) => job.id) };
}
