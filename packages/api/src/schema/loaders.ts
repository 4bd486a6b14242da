import type {
  AgentDefinition,
  AgentId,
  Core,
  JobId,
  JobView,
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
  readonly jobs: DataLoader<JobId, JobView | null>;
  readonly members: DataLoader<MemberId, Member | null>;
  readonly teams: DataLoader<TeamId, Team | null>;
  /** Roster of a team, in roster order. */
  readonly teamMembers: DataLoader<TeamId, readonly Member[]>;
  readonly memberStatuses: DataLoader<Member, MemberStatus, MemberId>;
  readonly agents: DataLoader<AgentId, AgentDefinition | null>;
  /** The RECEIPT delivering a request's result, keyed by the request. */
  readonly receipts: DataLoader<JobView, JobView | null, JobId>;
  /** Token usage and cost per job, chain, member conversation or team. */
  readonly usage: DataLoader<UsageScope, UsageTotals, string>;
  clearAll(): void;
}

/** Creates the loaders of one operation; each is made on first use (`OperationLoaders`). */
export function createLoaders(core: Core): Loaders {
  return new OperationLoaders(core);
}

/** A loader of rows by id: one `load` call per batch, a missing id answered with null. */
function byId<K extends string, V extends { readonly id: K }>(
  load: (ids: readonly K[]) => Promise<readonly V[]>,
): DataLoader<K, V | null> {
  return new DataLoader<K, V | null>(async (ids) => {
    const found = new Map((await load(ids)).map((item) => [item.id, item]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

/**
 * The loaders of one operation, each built when first used: most operations use one or two of
 * the nine (a `sendRequest` answer none, a `teamEvents` view its team and a job or member), and
 * every operation and every batch of live events gets its own set, so building all of them each
 * time was measurable (0.13 ms of a turn's CPU under tsx, whose `keepNames` wraps each closure).
 */
class OperationLoaders implements Loaders {
  readonly #core: Core;
  #jobs: DataLoader<JobId, JobView | null> | undefined;
  #members: DataLoader<MemberId, Member | null> | undefined;
  #teams: DataLoader<TeamId, Team | null> | undefined;
  #teamMembers: DataLoader<TeamId, readonly Member[]> | undefined;
  #memberStatuses: DataLoader<Member, MemberStatus, MemberId> | undefined;
  #agents: DataLoader<AgentId, AgentDefinition | null> | undefined;
  #teamReceipts: DataLoader<TeamId, ReadonlyMap<JobId, JobView>> | undefined;
  #receipts: DataLoader<JobView, JobView | null, JobId> | undefined;
  #usage: DataLoader<UsageScope, UsageTotals, string> | undefined;

  constructor(core: Core) {
    this.#core = core;
  }

  get jobs(): DataLoader<JobId, JobView | null> {
    this.#jobs ??= byId<JobId, JobView>((ids) => this.#core.load.jobs(ids));
    return this.#jobs;
  }

  get members(): DataLoader<MemberId, Member | null> {
    this.#members ??= byId<MemberId, Member>((ids) => this.#core.load.members(ids));
    return this.#members;
  }

  get teams(): DataLoader<TeamId, Team | null> {
    this.#teams ??= byId<TeamId, Team>((ids) => this.#core.load.teams(ids));
    return this.#teams;
  }

  get teamMembers(): DataLoader<TeamId, readonly Member[]> {
    this.#teamMembers ??= new DataLoader<TeamId, readonly Member[]>(async (teamIds) => {
      const members = await this.#core.teams.members(teamIds);
      return teamIds.map((teamId) =>
        members.filter((m) => m.teamId === teamId).sort((a, b) => a.position - b.position),
      );
    });
    return this.#teamMembers;
  }

  get memberStatuses(): DataLoader<Member, MemberStatus, MemberId> {
    this.#memberStatuses ??= new DataLoader<Member, MemberStatus, MemberId>(
      async (members) => {
        const owningTeams = (await this.teams.loadMany(members.map((m) => m.teamId))).filter(
          (team): team is Team => team !== null && !(team instanceof Error),
        );
        const statuses = await this.#core.teams.memberStatuses(members, owningTeams);
        return members.map((m) => statuses.get(m.id) ?? 'IDLE');
      },
      { cacheKeyFn: (member) => member.id },
    );
    return this.#memberStatuses;
  }

  get agents(): DataLoader<AgentId, AgentDefinition | null> {
    this.#agents ??= new DataLoader<AgentId, AgentDefinition | null>(async (ids) =>
      Promise.all(ids.map((id) => this.#core.agents.get(id))),
    );
    return this.#agents;
  }

  get receipts(): DataLoader<JobView, JobView | null, JobId> {
    this.#receipts ??= new DataLoader<JobView, JobView | null, JobId>(
      async (jobs) =>
        Promise.all(jobs.map(async (job) => (await this.#teamReceiptsLoader().load(job.teamId)).get(job.id) ?? null)),
      { cacheKeyFn: (job) => job.id },
    );
    return this.#receipts;
  }

  get usage(): DataLoader<UsageScope, UsageTotals, string> {
    this.#usage ??= new DataLoader<UsageScope, UsageTotals, string>(async (scopes) => this.#core.usage.totals(scopes), {
      cacheKeyFn: usageScopeKey,
    });
    return this.#usage;
  }

  clearAll(): void {
    // A loader not made yet holds nothing to clear.
    for (const loader of [
      this.#jobs,
      this.#members,
      this.#teams,
      this.#teamMembers,
      this.#memberStatuses,
      this.#agents,
      this.#receipts,
      this.#teamReceipts,
      this.#usage,
    ]) {
      loader?.clearAll();
    }
  }

  // The core has no "receipt of request" lookup yet; a team holds at most 100 receipts
  // (Limits.receiptsPerTeam), so one page of a team's receipts answers every request of it.
  #teamReceiptsLoader(): DataLoader<TeamId, ReadonlyMap<JobId, JobView>> {
    this.#teamReceipts ??= new DataLoader<TeamId, ReadonlyMap<JobId, JobView>>(async (teamIds) =>
      Promise.all(
        teamIds.map(async (teamId) => {
          const team = await this.teams.load(teamId);
          if (team === null) return new Map<JobId, JobView>();
          const page = await this.#core.jobs.list(team, { kind: 'RECEIPT', first: 100 });
          return new Map(page.edges.flatMap(({ node }) => (node.parentId ? [[node.parentId, node] as const] : [])));
        }),
      ),
    );
    return this.#teamReceipts;
  }
}
