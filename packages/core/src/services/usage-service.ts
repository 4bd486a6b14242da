import { NO_USAGE, type UsageScope, type UsageTotals, usageScopeKey } from '../model/usage.js';
import type { UsageLedger } from '../ports/team-store.js';
import type { Core, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<UsageLedger>;

/**
 * Builds the `usage` use cases: token and cost totals per job, handoff chain, member and team.
 *
 * @remarks Unscoped like `load.*`: resolvers only pass scopes of jobs, members and teams they
 * reached through an owner-scoped read. One store call answers a whole batch.
 */
export function usageService(deps: Deps): Core['usage'] {
  return {
    async totals(scopes: readonly UsageScope[]): Promise<readonly UsageTotals[]> {
      if (scopes.length === 0) return [];
      const totals = await deps.store.usageTotals(scopes);
      return scopes.map((scope) => totals.get(usageScopeKey(scope)) ?? NO_USAGE);
    },
  };
}
