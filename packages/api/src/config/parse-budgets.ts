import { BudgetLimits, type BudgetPolicy, NO_BUDGET_POLICY, type OwnerDayBudget } from '@agent-teams/core';
import { ConfigError } from './agent-teams-config.js';
import { refuseUnknownKeys, requireObject } from './parse-admission.js';

const OWNER_KEYS = new Set(['maxTokensPerDay', 'maxCostPerDay']);

/** A limit at `path`: null or absent (none), else a number within `range` (whole for tokens). */
function dayLimit(
  value: unknown,
  path: string,
  range: { readonly min: number; readonly max: number },
  whole: boolean,
  fallback: number | null,
  source: string,
): number | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (typeof value !== 'number' || !(value >= range.min && value <= range.max) || (whole && !Number.isInteger(value))) {
    const kind = whole ? 'an integer' : 'a number';
    throw new ConfigError(`${source}: ${path} must be null or ${kind} from ${range.min} to ${range.max}`);
  }
  return value;
}

function parseOwner(raw: unknown, path: string, base: OwnerDayBudget, source: string): OwnerDayBudget {
  const owner = requireObject(raw, path, '{ "maxTokensPerDay": n | null, "maxCostPerDay": n | null }', source);
  refuseUnknownKeys(owner, OWNER_KEYS, path, source);
  return {
    maxTokensPerDay: dayLimit(
      owner.maxTokensPerDay,
      `${path}.maxTokensPerDay`,
      BudgetLimits.maxTokens,
      true,
      base.maxTokensPerDay,
      source,
    ),
    maxCostPerDay: dayLimit(
      owner.maxCostPerDay,
      `${path}.maxCostPerDay`,
      BudgetLimits.maxCost,
      false,
      base.maxCostPerDay,
      source,
    ),
  };
}

/**
 * Validates `budgets` (contract `budgets.md`): `owners.<owner>` daily limits `{ maxTokensPerDay,
 * maxCostPerDay }` (UTC days; null: none), where `default` applies to every owner without its own
 * entry and fills the keys an owner's entry leaves out.
 * @throws ConfigError naming the JSON path at fault.
 */
export function parseBudgets(raw: unknown, source: string): BudgetPolicy {
  const budgets = requireObject(raw, 'budgets', '{ "owners": { ... } }', source);
  refuseUnknownKeys(budgets, new Set(['owners']), 'budgets', source);
  if (budgets.owners === undefined) return NO_BUDGET_POLICY;
  const entries = requireObject(
    budgets.owners,
    'budgets.owners',
    '{ "<owner>": { "maxTokensPerDay", "maxCostPerDay" } }',
    source,
  );
  const defaultOwner =
    entries.default === undefined
      ? NO_BUDGET_POLICY.defaultOwner
      : parseOwner(entries.default, 'budgets.owners.default', NO_BUDGET_POLICY.defaultOwner, source);
  const owners = new Map<string, OwnerDayBudget>();
  for (const [owner, rule] of Object.entries(entries)) {
    if (owner === 'default') continue;
    owners.set(owner, parseOwner(rule, `budgets.owners.${owner}`, defaultOwner, source));
  }
  return { defaultOwner, owners };
}
