import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { asTeamId, type OwnerId, type TeamId } from '../model/ids.js';
import { nowTimestamp } from '../ports/clock.js';
import type { Budgets } from '../ports/team-store.js';
import { BudgetLimits, type TeamBudget, type TeamBudgetLimits } from '../spend/spend-types.js';
import type { Core, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<Budgets>;

/** A limit within `range`, or null; INVALID_INPUT naming the field otherwise. */
function checkLimit(value: number | null, field: string, range: { readonly min: number; readonly max: number }) {
  if (value === null) return null;
  if (!Number.isFinite(value) || value < range.min || value > range.max) {
    throw new DomainError(
      ErrorCode.INVALID_INPUT,
      `${field} must be null or a number from ${range.min} to ${range.max}.`,
      {
        field,
      },
    );
  }
  if (field === 'maxTokens' && !Number.isInteger(value)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'maxTokens must be a whole number of tokens.', { field });
  }
  return value;
}

/**
 * Builds the `budgets` use cases: a team's spending limits (contract `budgets.md`).
 *
 * @remarks Raising or removing a budget lets new model calls run at once (each call is checked
 * when it is about to be made); jobs that already failed with BUDGET_EXHAUSTED stay failed.
 */
export function budgetService(deps: Deps): Core['budgets'] {
  return {
    async setTeamBudget(owner: OwnerId, teamId: string, limits: TeamBudgetLimits) {
      const checked = {
        maxTokens: checkLimit(limits.maxTokens, 'maxTokens', BudgetLimits.maxTokens),
        maxCost: checkLimit(limits.maxCost, 'maxCost', BudgetLimits.maxCost),
      };
      return deps.store.setTeamBudget(owner, asTeamId(teamId), checked, nowTimestamp(deps.clock));
    },
    async teamBudgets(teamIds: readonly TeamId[]): Promise<readonly TeamBudget[]> {
      if (teamIds.length === 0) return [];
      const found = await deps.store.teamBudgets(teamIds);
      return teamIds.map((id) => found.get(id) ?? { maxTokens: null, maxCost: null, usedTokens: 0, usedCost: 0 });
    },
  };
}
