import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asMemberId, asTeamId, type MemberId, type OwnerId } from '../model/ids.js';
import type { Job } from '../model/job.js';
import { nowTimestamp } from '../ports/clock.js';
import type { EnqueueSnapshot, JobWrites } from '../ports/team-store.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';
import type { Core, SendRequestInput, UsesStore } from './core-types.js';
import { memberRetired } from './lifecycle-decisions.js';
import { decideRequests, type RequestRecipient } from './request-decisions.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<JobWrites>;

function invalidMembers(message: string): DomainError {
  return new DomainError(ErrorCode.INVALID_INPUT, message, { field: 'memberIds' });
}

/** Checks the recipient list's shape: 1–8 distinct ids. */
function validateMemberIds(memberIds: unknown): MemberId[] {
  if (!Array.isArray(memberIds) || memberIds.length === 0) throw invalidMembers('Choose at least one member.');
  if (memberIds.length > Limits.maxMembers) throw invalidMembers(`Choose at most ${Limits.maxMembers} members.`);
  if (memberIds.some((id) => typeof id !== 'string')) throw invalidMembers('Member ids must be strings.');
  if (new Set(memberIds).size !== memberIds.length) throw invalidMembers('Each member may be chosen once.');
  return memberIds.map((id: string) => asMemberId(id));
}

/**
 * The recipients of a send, checked against the roster the enqueue read under the team lock:
 * NOT_FOUND (field `memberIds`) for an id not in the team, MEMBER_RETIRED for a retired member.
 */
function recipientsOf(
  planned: readonly Omit<RequestRecipient, 'conversationId'>[],
  snapshot: EnqueueSnapshot,
): RequestRecipient[] {
  if (snapshot.members === undefined) throw new Error('[agent-teams/core] the enqueue snapshot holds no members');
  const roster = new Map(snapshot.members.map((m) => [m.id, m]));
  return planned.map((recipient) => {
    const member = roster.get(recipient.memberId);
    if (member === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberIds' });
    if (member.retiredAt !== null) throw memberRetired('memberIds');
    return { ...recipient, conversationId: member.conversationId };
  });
}

/**
 * `requests.send`: one REQUEST job per recipient, in the given order, each a new chain asked by
 * a person. Idempotent per recipient by `(clientRequestId, memberId)`.
 *
 * @remarks The team and its roster are read once, under the enqueue's team lock (the team's
 * absence is the store's NOT_FOUND): no read before the transaction, and a member retired while
 * the send waited for the lock is seen.
 * @throws DomainError INVALID_INPUT, NOT_FOUND (team, or a member not in it: field `memberIds`),
 * MEMBER_RETIRED, IDEMPOTENCY_CONFLICT, TEAM_CLOSED, REQUEST_LIMIT.
 */
async function sendRequest(deps: Deps, owner: OwnerId, input: SendRequestInput): Promise<readonly Job[]> {
  const text = validateText('text', input.text, Limits.taskText);
  const clientKey = validateClientRequestId(input.clientRequestId);
  const memberIds = validateMemberIds(input.memberIds);
  // Ids are minted up front so the decision stays pure; a reused job leaves its pair unused.
  const planned = memberIds.map((memberId) => ({ memberId, jobId: deps.ids.jobId(), recordId: deps.ids.recordId() }));
  const requester = { memberId: null, conversationId: null };
  return deps.store.enqueueRequests({
    owner,
    teamId: asTeamId(input.teamId),
    keys: memberIds.map((memberId) => ({ requesterConversationId: null, clientKey, memberId })),
    roots: [],
    now: nowTimestamp(deps.clock),
    withMembers: true,
    decide: (snapshot) =>
      decideRequests(
        { recipients: recipientsOf(planned, snapshot), text, clientKey, requester, chain: null },
        snapshot,
      ),
  });
}

/** Builds the `requests` use cases. */
export function requestService(deps: Deps): Core['requests'] {
  return { send: (owner, input) => sendRequest(deps, owner, input) };
}
