import {
  addUsage,
  type Job,
  type JobId,
  NO_USAGE,
  type UsageEntry,
  type UsageLedger,
  type UsageScope,
  type UsageTotals,
  usageScopeKey,
} from '@agent-teams/core';
import type { MemoryStoreState } from './state.js';

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
function usageTotalsIn(
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

/** The in-memory {@link UsageLedger}. */
export function memoryUsageLedger(state: MemoryStoreState): UsageLedger {
  return {
    async recordUsage(entry, now) {
      if (state.usage.has(entry.id)) return;
      state.usage.set(entry.id, entry);
      state.usageAt.set(entry.id, now);
    },
    usageTotals: async (scopes) => usageTotalsIn(state.usage.values(), state.jobs, scopes),
  };
}
