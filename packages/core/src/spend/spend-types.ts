import type { JobId, OwnerId, TeamId } from '../model/ids.js';

/** A team's spending limits (`setTeamBudget`); null: no limit. Cost is in the agents' pricing currency. */
export interface TeamBudgetLimits {
  readonly maxTokens: number | null;
  readonly maxCost: number | null;
}

/** `Team.budget`: the limits and what the team's model calls used so far. */
export interface TeamBudget extends TeamBudgetLimits {
  readonly usedTokens: number;
  readonly usedCost: number;
}

/** An owner's limits per UTC day (`budgets.owners.<owner>`); null: no limit. */
export interface OwnerDayBudget {
  readonly maxTokensPerDay: number | null;
  readonly maxCostPerDay: number | null;
}

/** The `budgets` configuration: per-owner daily limits, `default` for owners without an entry. */
export interface BudgetPolicy {
  readonly defaultOwner: OwnerDayBudget;
  readonly owners: ReadonlyMap<string, OwnerDayBudget>;
}

/** No daily limit for anyone (a server without a `budgets` setting). */
export const NO_BUDGET_POLICY: BudgetPolicy = {
  defaultOwner: { maxTokensPerDay: null, maxCostPerDay: null },
  owners: new Map(),
};

/** The daily limits of `owner`. */
export function ownerDayBudget(policy: BudgetPolicy, owner: OwnerId): OwnerDayBudget {
  return policy.owners.get(owner) ?? policy.defaultOwner;
}

/** Tokens and cost, used or reserved. */
export interface Spend {
  readonly tokens: number;
  readonly cost: number;
}

/** What one model call may spend at most: its prompt estimate plus its output allowance. */
export interface SpendReservation extends Spend {
  /** Unique per call; releasing it twice is harmless. */
  readonly id: string;
  readonly teamId: TeamId;
  readonly jobId: JobId;
  /**
   * Who holds it (one execution of the job's turn): a release that names another holder leaves
   * it, so a server that lost its job does not release the reservation of the one that took it over.
   */
  readonly holder?: string;
}

/** The bounds of budget values (`setTeamBudget`, `budgets.owners`). */
export const BudgetLimits = {
  /** At most the largest GraphQL Int. */
  maxTokens: { min: 0, max: 2_147_483_647 },
  maxCost: { min: 0, max: 1_000_000_000 },
  /** Output allowance of one call when the agent sets no `maxOutputTokens`. */
  defaultMaxOutputTokens: 1_024,
  maxOutputTokens: { min: 1, max: 1_000_000 },
  /**
   * A reservation older than this is no longer counted: its server died before releasing it
   * (the longest turn deadline, one hour, bounds every live call).
   */
  reservationTtlMs: 3_600_000,
} as const;

/** The UTC day (`YYYY-MM-DD`) of an ISO timestamp. */
export function utcDay(now: string): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The ISO bounds `[start, end)` of the UTC day of `now`. */
export function utcDayBounds(now: string): { readonly start: string; readonly end: string } {
  const day = utcDay(now);
  const start = `${day}T00:00:00.000Z`;
  const end = new Date(Date.parse(start) + 86_400_000).toISOString();
  return { start, end };
}
