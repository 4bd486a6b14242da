import { BudgetLimits, NO_BUDGET_POLICY } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './agent-teams-config.js';
import { parseBudgets } from './parse-budgets.js';
import { parseConfig } from './parse-config.js';

const parse = (raw: unknown) => parseBudgets(raw, 'c.json');

describe('parseBudgets', () => {
  it('reads the contract example, default filling what an owner leaves out', () => {
    const policy = parse({
      owners: {
        default: { maxTokensPerDay: null, maxCostPerDay: null },
        alice: { maxTokensPerDay: 200000, maxCostPerDay: 5 },
        bob: { maxCostPerDay: 0.5 },
      },
    });
    expect(policy.owners.get('alice')).toEqual({ maxTokensPerDay: 200000, maxCostPerDay: 5 });
    expect(policy.owners.get('bob')).toEqual({ maxTokensPerDay: null, maxCostPerDay: 0.5 });
    expect(parse({})).toEqual(NO_BUDGET_POLICY);
  });

  it('checks limits at and past their bounds', () => {
    const tokens = (n: unknown) =>
      parse({ owners: { alice: { maxTokensPerDay: n } } }).owners.get('alice')?.maxTokensPerDay;
    expect(tokens(0)).toBe(0);
    expect(tokens(BudgetLimits.maxTokens.max)).toBe(BudgetLimits.maxTokens.max);
    expect(() => tokens(BudgetLimits.maxTokens.max + 1)).toThrow(ConfigError);
    expect(() => tokens(-1)).toThrow(/budgets\.owners\.alice\.maxTokensPerDay must be null or an integer/);
    expect(() => tokens(1.5)).toThrow(ConfigError);
    expect(() => parse({ owners: { alice: { maxCostPerDay: -0.01 } } })).toThrow(
      /maxCostPerDay must be null or a number/,
    );
    expect(() => parse({ owners: { alice: { cap: 1 } } })).toThrow(/budgets\.owners\.alice\.cap is not a setting/);
    expect(() => parse({ teams: {} })).toThrow(/budgets\.teams is not a setting/);
  });

  it('is read from the configuration file', () => {
    const config = parseConfig(
      { agents: [{ name: 'a' }], budgets: { owners: { alice: { maxCostPerDay: 5 } } } },
      'c.json',
    );
    expect(config.budgets?.owners.get('alice')?.maxCostPerDay).toBe(5);
  });
});
