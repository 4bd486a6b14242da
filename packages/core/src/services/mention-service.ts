import { Limits } from '../limits/limits.js';
import { mentionLabel } from '../mentions/mention-label.js';
import type { AgentDefinition } from '../model/agent.js';
import type { AgentId, OwnerId } from '../model/ids.js';
import { type Team, TeamStatus } from '../model/team.js';
import type { TeamReads } from '../ports/team-store.js';
import type { Core, MentionTargetView, UsesStore } from './core-types.js';
import { validateQuery } from './query.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads>;

/** All of the owner's teams, newest first (at most `Limits.teamsPerOwner`, read page by page). */
async function allTeams(deps: Deps, owner: OwnerId): Promise<Team[]> {
  const teams: Team[] = [];
  let afterSeq: number | null = null;
  for (;;) {
    const page = await deps.store.listTeams(owner, { first: Limits.connectionPage.max, afterSeq });
    teams.push(...page.items);
    const last = page.items.at(-1);
    if (!page.hasNextPage || last === undefined) return teams;
    afterSeq = last.seq;
  }
}

/**
 * `mentions.search`: members of the owner's READY teams (newest team first, roster order within
 * a team) whose `"<team> <member> <agent>"` contains the case-folded query; at most
 * `Limits.mentionResults`.
 * @throws DomainError INVALID_INPUT (field `query`) or CATALOG_UNAVAILABLE.
 */
async function searchMentions(deps: Deps, owner: OwnerId, query: string): Promise<MentionTargetView[]> {
  const folded = validateQuery(query, Limits.mentionQueryChars).toLowerCase();
  const teams = (await allTeams(deps, owner)).filter((team) => team.status === TeamStatus.READY);
  if (teams.length === 0) return [];
  const [members, catalog] = await Promise.all([deps.store.listMembers(teams.map((t) => t.id)), deps.catalog.list()]);
  const agents = new Map<AgentId, AgentDefinition>(catalog.map((agent) => [agent.id, agent]));
  const targets: MentionTargetView[] = [];
  for (const team of teams) {
    for (const member of members.filter((m) => m.teamId === team.id)) {
      const agent = agents.get(member.agentId);
      const agentName = agent?.name ?? member.agentId;
      if (!`${team.name} ${member.name} ${agentName}`.toLowerCase().includes(folded)) continue;
      targets.push({
        id: `${team.id}/${member.id}`,
        label: mentionLabel(team.name, member.name),
        description: agent?.title || agentName,
        team,
        member,
      });
      if (targets.length === Limits.mentionResults) return targets;
    }
  }
  return targets;
}

/** Builds the `mentions` use cases. */
export function mentionService(deps: Deps): Core['mentions'] {
  return { search: (owner, query) => searchMentions(deps, owner, query) };
}
