import {
  addUsage,
  type Job,
  type JobId,
  NO_USAGE,
  type UsageEntry,
  type UsageScope,
  type UsageTotals,
  usageScopeKey,
} from '@agent-teams/core';

/** True when `entry` counts towards `scope` (a chain counts every job whose root is the scope id). */
function counts(entry: UsageEntry, scope: UsageScope, jobs: ReadonlyMap<JobId, Job>): boolean {
  switch (scope.kind) {
    case 'job':
      return entry.jobId === scope.id;
    case 'conversation':
      return entry.conversationId === scope.id;
    case 'team':
      return entry.teamId === scope.id;
    case 'chain':
      return jobs.get(entry.jobId)?.rootId === scope.id;
  }
}

/** The memory store's `usageTotals`: a sum per scope over every recorded entry. */
export function usageTotalsIn(
  entries: Iterable<UsageEntry>,
  jobs: ReadonlyMap<JobId, Job>,
  scopes: readonly UsageScope[],
): ReadonlyMap<string, UsageTotals> {
  const all = [...entries];
  return new Map(
    scopes.map((scope) => [
      usageScopeKey(scope),
      all.filter((entry) => counts(entry, scope, jobs)).reduce(addUsage, NO_USAGE),
    ]),
  );
}
