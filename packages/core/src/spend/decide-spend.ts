import type { OwnerId } from '../model/ids.js';
import type { OwnerDayBudget, Spend, TeamBudgetLimits } from './spend-types.js';

/** What a reservation is checked against: each budget's limits and what is used or reserved already. */
export interface SpendSnapshot {
  readonly owner: OwnerId;
  readonly team: { readonly limits: TeamBudgetLimits; readonly spent: Spend };
  readonly ownerDay: { readonly limits: OwnerDayBudget; readonly spent: Spend; readonly day: string };
  readonly request: Spend;
}

/** The budget a call would pass. */
export interface SpendRefusal {
  readonly budget: 'team' | 'owner';
  readonly unit: 'tokens' | 'cost';
  readonly limit: number;
  readonly spent: number;
  readonly requested: number;
  /** Names the budget, for the job's error text. */
  readonly message: string;
}

/** The answer of {@link decideSpend}. */
export type SpendDecision =
  | {
      readonly ok: true;
      /** `false` when no budget applies and nothing was recorded: there is no reservation to release. */
      readonly held?: false;
    }
  | ({ readonly ok: false } & SpendRefusal);

function passes(limit: number | null, spent: number, requested: number): boolean {
  return limit === null || spent + requested <= limit;
}

/**
 * Decides one reservation, pure: refused when the call, at its reservation (prompt estimate plus
 * output allowance), could take any budget past its limit. A budget used up (spent ≥ limit) refuses
 * every call, so none is ever made once a budget is exhausted.
 */
export function decideSpend(s: SpendSnapshot): SpendDecision {
  const checks = [
    ['team', 'tokens', s.team.limits.maxTokens, s.team.spent.tokens, s.request.tokens],
    ['team', 'cost', s.team.limits.maxCost, s.team.spent.cost, s.request.cost],
    ['owner', 'tokens', s.ownerDay.limits.maxTokensPerDay, s.ownerDay.spent.tokens, s.request.tokens],
    ['owner', 'cost', s.ownerDay.limits.maxCostPerDay, s.ownerDay.spent.cost, s.request.cost],
  ] as const;
  for (const [budget, unit, limit, spent, requested] of checks) {
    if (limit === null || passes(limit, spent, requested)) continue;
    const which =
      budget === 'team'
        ? `The team's ${unit} budget`
        : `Owner ${s.owner}'s daily ${unit} budget (UTC ${s.ownerDay.day})`;
    const message =
      `${which} would be exceeded: ${format(spent)} of ${format(limit)} used or reserved, and the next model ` +
      `call may take up to ${format(requested)}. The call was not made.`;
    return { ok: false, budget, unit, limit, spent, requested, message };
  }
  return { ok: true };
}

function format(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(6).replace(/0+$/, '');
}
