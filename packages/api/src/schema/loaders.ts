import type {
  AgentDefinition,
  AgentId,
  Core,
  Job,
  JobId,
  Member,
  MemberId,
  MemberStatus,
  Team,
  TeamId,
  UsageScope,
  UsageTotals,
} from '@agent-teams/core';
import { usageScopeKey } from '@agent-teams/core';
import DataLoader from 'dataloader';

/**
 * Per-operation batch loaders, so a list of jobs loads its teams, members and parents in one call
 * each instead of one per item.
 *
 * @remarks Loaders only ever receive ids reached through an owner-scoped read (the core's `load.*`
 * are unscoped by design). A subscription lives long, so it calls {@link Loaders.clearAll} before
 * each event to show the current state rather than a cached one.
 */
export interface Loaders {
  readonly jobs: DataLoader<JobId, Job | null>;
  readonly members: DataLoader<MemberId, Member | null>;
  readonly teams: DataLoader<TeamId, Team | null>;
  /** Roster of a team, in roster order. */
  readonly teamMembers: DataLoader<TeamId, readonly Member[]>;
  readonly memberStatuses: DataLoader<Member, MemberStatus, MemberId>;
  readonly agents: DataLoader<AgentId, AgentDefinition | null>;
  /** The RECEIPT delivering a request's result, keyed by the request. */
  readonly receipts: DataLoader<Job, Job | null, JobId>;
  /** Token usage and cost per job, chain, member conversation or team. */
  readonly usage: DataLoader<UsageScope, UsageTotals, string>;
  clearAll(): void;
}

/** Creates the loaders of one operation. */
export function createLoaders(core: Core): Loaders {
  const byId = <K extends string, V extends { readonly id: K }>(load: (ids: readonly K[]) => Promise<readonly V[]>) =>
    new DataLoader<K, V | null>(async (ids) => {
      const found = new Map((await load(ids)).map((item) => [item.id, item]));
      return ids.map((id) => found.get(id) ?? null);
    });
  const teams = byId<TeamId, Team>((ids) => core.load.teams(ids));
  const teamMembers = new DataLoader<TeamId, readonly Member[]>(async (teamIds) => {
    const members = await core.teams.members(teamIds);
    return teamIds.map((teamId) => members.filter((m) => m.teamId === teamId).sort((a, b) => a.position - b.position));
  });
  const memberStatuses = new DataLoader<Member, MemberStatus, MemberId>(
    async (members) => {
      const owningTeams = (await teams.loadMany(members.map((m) => m.teamId))).filter(
        (team): team is Team => team !== null && !(team instanceof Error),
      );
      const statuses = await core.teams.memberStatuses(members, owningTeams);
      return members.map((m) => statuses.get(m.id) ?? 'IDLE');
    },
    { cacheKeyFn: (member) => member.id },
  );
  // The core has no "receipt of request" lookup yet; a team holds at most 100 receipts
  // (Limits.receiptsPerTeam), so one page of a team's receipts answers every request of it.
  const teamReceipts = new DataLoader<TeamId, ReadonlyMap<JobId, Job>>(async (teamIds) =>
    Promise.all(
      teamIds.map(async (teamId) => {
        const team = await teams.load(teamId);
        if (team === null) return new Map<JobId, Job>();
        const page = await core.jobs.list(team, { kind: 'RECEIPT', first: 100 });
        return new Map(page.edges.flatMap(({ node }) => (node.parentId ? [[node.parentId, node] as const] : [])));
      }),
    ),
  );
  const receipts = new DataLoader<Job, Job | null, JobId>(
    async (jobs) => Promise.all(jobs.map(async (job) => (await teamReceipts.load(job.teamId)).get(job.id) ?? null)),
    { cacheKeyFn: (job) => job.id },
  );
  const loaders: Loaders = {
    jobs: byId<JobId, Job>((ids) => core.load.jobs(ids)),
    members: byId<MemberId, Member>((ids) => core.load.members(ids)),
    teams,
    teamMembers,
    memberStatuses,
    agents: new DataLoader<AgentId, AgentDefinition | null>(async (ids) =>
      Promise.all(ids.map((id) => core.agents.get(id))),
    ),
    receipts,
    usage: new DataLoader<UsageScope, UsageTotals, string>(async (scopes) => core.usage.totals(scopes), {
      cacheKeyFn: usageScopeKey,
    }),
    clearAll() {
      for (const loader of [
        loaders.jobs,
        loaders.members,
        teams,
        teamMembers,
        memberStatuses,
        loaders.agents,
        receipts,
        teamReceipts,
        loaders.usage,
      ]) {
        loader.clearAll();
      }
    },
  };
  return loaders;
}
