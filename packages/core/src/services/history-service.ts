import { asJobId, type TeamId } from '../model/ids.js';
import type { JobReads, JobWrites, RecordReads, Tasks, TeamReads } from '../ports/team-store.js';
import { invokeMemberTool, memberToolsForJob } from '../tools/member-tools.js';
import { planOutsideWait } from '../tools/outside-wait.js';
import { readHistory, readResult, readResults } from '../tools/team-reads.js';
import type { Core, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads & JobReads & RecordReads & JobWrites & Tasks>;

/** GraphQL names the id filters `filter.memberId` / `filter.jobId`. */
const GRAPHQL_FIELDS = { memberId: 'memberId', jobId: 'jobId' } as const;

/** Builds the `history` use cases: the owner's reads of the tools' data (a `Team` is already scoped). */
export function historyService(deps: Deps): Core['history'] {
  const rosterOf = async (teamId: TeamId) => new Map((await deps.store.listMembers([teamId])).map((m) => [m.id, m]));
  return {
    page: async (team, args) => (await readHistory(deps.store, team, args, GRAPHQL_FIELDS)).view,
    results: async (team, args) =>
      (await readResults(deps.store, team, await rosterOf(team.id), args, GRAPHQL_FIELDS)).view,
    result: async (team, jobId) =>
      (await readResult(deps.store, team, await rosterOf(team.id), asJobId(jobId)))?.view ?? null,
  };
}

/** Builds the `tools` use cases. */
export function toolService(deps: Parameters<typeof invokeMemberTool>[0]): Core['tools'] {
  return {
    invoke: (jobId, name, args) => invokeMemberTool(deps, jobId, name, args),
    forJob: (jobId) => memberToolsForJob(deps, jobId),
    planOutsideWait: (jobId, args) => planOutsideWait(deps, jobId, args),
  };
}
