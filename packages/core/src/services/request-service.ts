import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asMemberId, type MemberId, type OwnerId } from '../model/ids.js';
import type { Job } from '../model/job.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobWrites, TeamReads } from '../ports/team-store.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';
import type { Core, SendRequestInput, UsesStore } from './core-types.js';
import { memberRetired } from './lifecycle-decisions.js';
import { decideRequests, type RequestRecipient } from './request-decisions.js';
import { requireTeam } from './team-service.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads & JobWrites>;

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
 * `requests.send`: one REQUEST job per recipient, in the given order, each a new chain asked by
 * a person. Idempotent per recipient by `(clientRequestId, memberId)`.
 * @throws DomainError INVALID_INPUT, NOT_FOUND (team, or a member not in it: field `memberIds`),
 * IDEMPOTENCY_CONFLICT, REQUEST_LIMIT.
 */
async function sendRequest(deps: Deps, owner: OwnerId, input: SendRequestInput): Promise<readonly Job[]> {
  const text = validateText('text', input.text, Limits.taskText);
  const clientKey = validateClientRequestId(input.clientRequestId);
  const memberIds = validateMemberIds(input.memberIds);
  const team = await requireTeam(deps, owner, input.teamId);
  const roster = new Map((await deps.store.listMembers([team.id])).map((m) => [m.id, m]));
  const recipients: RequestRecipient[] = memberIds.map((memberId) => {
    const member = roster.get(memberId);
    if (member === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberIds' });
    if (member.retiredAt !== null) throw memberRetired('memberIds');
    // Ids are minted up front so the decision stays pure; a reused job leaves its pair unused.
    return { memberId, conversationId: member.conversationId, jobId: deps.ids.jobId(), recordId: deps.ids.recordId() };
  });
  const plan = { recipients, text, clientKey, requester: { memberId: null, conversationId: null }, chain: null };
  return deps.store.enqueueRequests({
    owner,
    teamId: team.id,
    keys: recipients.map((r) => ({ requesterConversationId: null, clientKey, memberId: r.memberId })),
    roots: [],
    now: nowTimestamp(deps.clock),
    decide: (snapshot) => decideRequests(plan, snapshot),
  });
}

/** Builds the `requests` use cases. */
export function requestService(deps: Deps): Core['requests'] {
  return { send: (owner, input) => sendRequest(deps, owner, input) };
}
