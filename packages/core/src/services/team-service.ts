import { fitTeamContext } from '../context/team-context.js';
import { notFound } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asTeamId, type MemberId, type OwnerId, type TeamId } from '../model/ids.js';
import { JobKind } from '../model/job.js';
import { deriveMemberStatus } from '../model/member-status.js';
import { type MemberStatus, type Team, TeamStatus } from '../model/team.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobReads, RecordReads, TeamReads, TeamWrites } from '../ports/team-store.js';
import { seqPageRequest, toConnection } from './connections.js';
import type { Core, UsesStore } from './core-types.js';
import { listJobs } from './job-service.js';
import { ensureMemberConversations } from './member-conversations.js';
import { createTeam } from './team-creation.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamWrites & TeamReads & JobReads & RecordReads>;

const TEAM_SCOPE = { kind: 'team' } as const;
const TEAM_PAGE = { defaultSize: Limits.connectionPage.default, maxSize: Limits.connectionPage.max };

/** The owner's team, or NOT_FOUND (also for another owner's team: no existence leak). */
export async function requireTeam(deps: UsesStore<TeamReads>, owner: OwnerId, teamId: string): Promise<Team> {
  const team = await deps.store.findTeam(owner, asTeamId(teamId));
  if (team === null) throw notFound('team');
  return team;
}

/**
 * `teams.reconnect`: ensures every member conversation again (missing ones are re-created with
 * the member's recorded agent) and, when all succeed, marks the team READY. A failure is logged
 * and the team is returned in its current status.
 */
async function reconnectTeam(deps: Deps, owner: OwnerId, teamId: string): Promise<Team> {
  const team = await requireTeam(deps, owner, teamId);
  const members = await deps.store.listMembers([team.id]);
  const ensured = await ensureMemberConversations(deps, team, members);
  if (!ensured || team.status === TeamStatus.READY) return team;
  return deps.store.setTeamStatus(team.id, TeamStatus.READY, nowTimestamp(deps.clock));
}

/** Builds the `teams` use cases. */
export function teamService(deps: Deps): Core['teams'] {
  const { store } = deps;
  return {
    create: (owner, input) => createTeam(deps, owner, input),
    get: (owner, teamId) => store.findTeam(owner, asTeamId(teamId)),
    async list(owner, page) {
      const teams = await store.listTeams(owner, seqPageRequest(page, TEAM_SCOPE, TEAM_PAGE));
      return toConnection(teams, (team) => team.seq, TEAM_SCOPE);
    },
    async delete(owner, teamId): Promise<TeamId> {
      const id = asTeamId(teamId);
      await store.deleteTeam(owner, id, nowTimestamp(deps.clock));
      return id;
    },
    reconnect: (owner, teamId) => reconnectTeam(deps, owner, teamId),
    async capacity(team) {
      const counts = await store.countJobs(team.id);
      return {
        requests: counts.requests,
        requestLimit: Limits.requestsPerTeam,
        receipts: counts.receipts,
        receiptLimit: Limits.receiptsPerTeam,
        chainLimit: Limits.requestsPerChain,
      };
    },
    async context(team) {
      const [members, records] = await Promise.all([
        store.listMembers([team.id]),
        store.recentRecords(team.id, Limits.contextMessages),
      ]);
      return { goal: team.goal, members, messages: fitTeamContext(team, members, records) };
    },
    async activity(team, args) {
      const revision = String(team.revision);
      // The client already shows this revision: answer without reading a page.
      if (args.revision === revision) return { unchanged: true, revision };
      const jobs = await listJobs(deps, team, { kind: JobKind.REQUEST, first: args.first, after: args.after });
      return { unchanged: false, revision, jobs };
    },
    members: (teamIds) => store.listMembers(teamIds),
    async memberStatuses(members, teams) {
      const states = await store.conversationStates(members.map((m) => m.conversationId));
      const teamStatus = new Map(teams.map((t) => [t.id, t.status]));
      const missing = [...new Set(members.map((m) => m.teamId))].filter((id) => !teamStatus.has(id));
      if (missing.length > 0) for (const t of await store.findTeams(missing)) teamStatus.set(t.id, t.status);
      const statuses = new Map<MemberId, MemberStatus>();
      for (const member of members) {
        const state = states.get(member.conversationId) ?? { head: null, lastFinished: null };
        // A member whose team is gone (deleted meanwhile) has no conversation to speak of.
        statuses.set(
          member.id,
          deriveMemberStatus(teamStatus.get(member.teamId) ?? TeamStatus.CREATING, state, member.retiredAt),
        );
      }
      return statuses;
    },
  };
}
