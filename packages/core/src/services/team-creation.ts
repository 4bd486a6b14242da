import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { AgentDefinition } from '../model/agent.js';
import { type AgentId, asAgentId, type OwnerId } from '../model/ids.js';
import { type Team, TeamStatus } from '../model/team.js';
import { hashFilter } from '../pagination/cursor.js';
import { nowTimestamp } from '../ports/clock.js';
import type { NewTeam, TeamReads, TeamWrites } from '../ports/team-store.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';
import type { CreateTeamInput, UsesStore } from './core-types.js';
import { ensureMemberConversations } from './member-conversations.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamWrites & TeamReads>;

/** Creation input after validation: trimmed text and the agents each member runs. */
interface ValidTeamInput {
  readonly clientRequestId: string;
  readonly name: string;
  readonly goal: string;
  readonly members: readonly { readonly name: string; readonly agentId: AgentId }[];
  readonly agents: ReadonlyMap<AgentId, AgentDefinition>;
}

/**
 * Validates `createTeam` input before anything is written.
 * @throws DomainError INVALID_INPUT, MEMBER_COUNT, DUPLICATE_MEMBER_NAME, NOT_FOUND (unknown
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
  const members = raw.map((m, i) => ({
    name: validateText(`members[${i}].name`, m.name, Limits.memberName),
    agentId: asAgentId(validateText(`members[${i}].agentId`, m.agentId, Limits.clientRequestId)),
  }));
  members.forEach((m, i) => {
    if (members.findIndex((other) => other.name === m.name) !== i) {
      throw new DomainError(ErrorCode.DUPLICATE_MEMBER_NAME, 'Member names must be distinct.', {
        field: `members[${i}].name`,
      });
    }
  });
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
  const content = { name: valid.name, goal: valid.goal, members: valid.members.map((m) => [m.name, m.agentId]) };
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
