import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { AgentDefinition } from '../model/agent.js';
import { type AgentId, asAgentId, type OwnerId } from '../model/ids.js';
import { type Team, TeamStatus } from '../model/team.js';
import { hashFilter } from '../pagination/cursor.js';
import { nowTimestamp } from '../ports/clock.js';
import type { NewTeam, TeamReads, TeamWrites } from '../ports/team-store.js';
import { validateClientRequestId, validateRole, validateText } from '../text/validate-text.js';
import type { CreateTeamInput, MemberInput, UsesStore } from './core-types.js';
import { ensureMemberConversations } from './member-conversations.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamWrites & TeamReads>;

/** Creation input after validation: trimmed text and the agents each member runs. */
interface ValidTeamInput {
  readonly clientRequestId: string;
  readonly name: string;
  readonly goal: string;
  readonly members: readonly ValidMember[];
  readonly agents: ReadonlyMap<AgentId, AgentDefinition>;
}

/** One member after validation. */
interface ValidMember {
  readonly name: string;
  readonly agentId: AgentId;
  readonly role: string | null;
  readonly isLead: boolean;
}

/** Validates one member: its name, agent id and role (see `validateRole`); `lead` counts only when `true`. */
function validateMember(m: MemberInput, i: number): ValidMember {
  return {
    name: validateText(`members[${i}].name`, m.name, Limits.memberName),
    agentId: asAgentId(validateText(`members[${i}].agentId`, m.agentId, Limits.clientRequestId)),
    role: validateRole(`members[${i}].role`, m.role),
    isLead: m.lead === true,
  };
}

/** @throws DomainError LEAD_COUNT naming the first lead past `Limits.leadsPerTeam`. */
function checkLeadCount(members: readonly ValidMember[]): void {
  const leads = members.flatMap((m, i) => (m.isLead ? [i] : []));
  const extra = leads[Limits.leadsPerTeam];
  if (extra !== undefined) {
    throw new DomainError(ErrorCode.LEAD_COUNT, 'At most one member may be the lead.', {
      field: `members[${extra}].lead`,
      max: Limits.leadsPerTeam,
      actual: leads.length,
    });
  }
}

/**
 * Validates `createTeam` input before anything is written.
 * @throws DomainError INVALID_INPUT, MEMBER_COUNT, DUPLICATE_MEMBER_NAME, LEAD_COUNT, NOT_FOUND (unknown
 * agent, with the member's `agentId` field) or CATALOG_UNAVAILABLE.
 */
async function validateTeamInput(deps: Deps, input: CreateTeamInput): Promise<ValidTeamInput> {
  const clientRequestId = validateClientRequestId(input.clientRequestId);
  const name = validateText('name', input.name, Limits.teamName);
  const goal = validateText('goal', input.goal, Limits.goal);
  const raw = Array.isArray(input.members) ? input.members : [];
  if (raw.length < Limits.minMembers || raw.length > Limits.maxMembers) {
    throw new DomainError(ErrorCode.MEMBER_COUNT, `Choose ${Limits.minMembers} to ${Limits.maxMembers} members.`, {
      min: Limits.minMembers,
      max: Limits.maxMembers,
      actual: raw.length,
    });
  }
  const members = raw.map(validateMember);
  members.forEach((m, i) => {
    if (members.findIndex((other) => other.name === m.name) !== i) {
      throw new DomainError(ErrorCode.DUPLICATE_MEMBER_NAME, 'Member names must be distinct.', {
        field: `members[${i}].name`,
      });
    }
  });
  checkLeadCount(members);
  const agents = new Map<AgentId, AgentDefinition>();
  for (const [i, m] of members.entries()) {
    const agent = agents.get(m.agentId) ?? (await deps.catalog.get(m.agentId));
    if (agent === null) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'No such agent in the catalog.', { field: `members[${i}].agentId` });
    }
    agents.set(m.agentId, agent);
  }
  return { clientRequestId, name, goal, members, agents };
}

/**
 * `teams.create`: validates, inserts the team idempotently (same key and content → the same
 * team), then ensures the member conversations and marks it READY.
 *
 * @remarks A retry of a team still CREATING ensures its conversations again, so a creation
 * interrupted by a runtime failure completes on the person's next attempt.
 */
export async function createTeam(deps: Deps, owner: OwnerId, input: CreateTeamInput): Promise<Team> {
  const valid = await validateTeamInput(deps, input);
  // A member without role or lead keeps the fingerprint it had before roles existed, so a retry of
  // a creation begun by an older server still finds its team instead of IDEMPOTENCY_CONFLICT.
  const content = {
    name: valid.name,
    goal: valid.goal,
    members: valid.members.map((m) =>
      m.role === null && !m.isLead ? [m.name, m.agentId] : [m.name, m.agentId, m.role, m.isLead],
    ),
  };
  const newTeam: NewTeam = {
    id: deps.ids.teamId(),
    owner,
    clientRequestId: valid.clientRequestId,
    fingerprint: hashFilter(content),
    name: valid.name,
    goal: valid.goal,
    members: valid.members.map((m) => ({ ...m, id: deps.ids.memberId(), conversationId: deps.ids.conversationId() })),
  };
  const { team, created } = await deps.store.createTeam(newTeam, {
    now: nowTimestamp(deps.clock),
    maxTeams: Limits.teamsPerOwner,
  });
  if (!created && team.status !== TeamStatus.CREATING) return team;
  const members = await deps.store.listMembers([team.id]);
  const ensured = await ensureMemberConversations(deps, team, members, valid.agents);
  if (!ensured) return team;
  return deps.store.setTeamStatus(team.id, TeamStatus.READY, nowTimestamp(deps.clock));
}
