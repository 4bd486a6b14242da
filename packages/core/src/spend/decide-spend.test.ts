import { describe, expect, it } from 'vitest';
import { asOwnerId } from '../model/ids.js';
import { decideSpend, type SpendSnapshot } from './decide-spend.js';
import { utcDay, utcDayBounds } from './spend-types.js';

const snapshot = (over: Partial<SpendSnapshot> = {}): SpendSnapshot => ({
  owner: asOwnerId('alice'),
  team: { limits: { maxTokens: null, maxCost: null }, spent: { tokens: 0, cost: 0 } },
  ownerDay: {
    limits: { maxTokensPerDay: null, maxCostPerDay: null },
    spent: { tokens: 0, cost: 0 },
    day: '2026-12-01',
  },
  request: { tokens: 0, cost: 0 },
  ...over,
});
const team = (maxTokens: number | null, spent: number, maxCost: number | null = null, spentCost = 0) => ({
  limits: { maxTokens, maxCost },
  spent: { tokens: spent, cost: spentCost },
});

describe('decideSpend', () => {
  it('passes a call that reaches the limit exactly and refuses one token more (n−1, n, n+1)', () => {
    for (const [requested, ok] of [
      [99, true],
      [100, true],
      [101, false],
    ] as const) {
      expect(decideSpend(snapshot({ team: team(1000, 900), request: { tokens: requested, cost: 0 } })).ok).toBe(ok);
    }
  });

  it('refuses every call, even an empty one past the limit, once a budget is used up', () => {
    expect(decideSpend(snapshot({ team: team(100, 100), request: { tokens: 1, cost: 0 } })).ok).toBe(false);
    expect(decideSpend(snapshot({ team: team(100, 120), request: { tokens: 0, cost: 0 } })).ok).toBe(false);
    expect(decideSpend(snapshot({ team: team(0, 0), request: { tokens: 1, cost: 0 } })).ok).toBe(false);
  });

  it('checks cost like tokens, and names the budget and unit it refuses on', () => {
    const refused = decideSpend(snapshot({ team: team(null, 0, 1, 0.75), request: { tokens: 5, cost: 0.5 } }));
    expect(refused).toMatchObject({ ok: false, budget: 'team', unit: 'cost', limit: 1, spent: 0.75, requested: 0.5 });
    expect(!refused.ok && refused.message).toMatch(/^The team's cost budget would be exceeded: 0\.75 of 1/);
  });

  it("checks the owner's daily budget, naming the owner and the UTC day", () => {
    const refused = decideSpend(
      snapshot({
        ownerDay: {
          limits: { maxTokensPerDay: 10, maxCostPerDay: null },
          spent: { tokens: 9, cost: 0 },
          day: '2026-12-01',
        },
        request: { tokens: 2, cost: 0 },
      }),
    );
    expect(refused).toMatchObject({ ok: false, budget: 'owner', unit: 'tokens' });
    expect(!refused.ok && refused.message).toMatch(/Owner alice's daily tokens budget \(UTC 2026-12-01\)/);
  });

  it('has UTC days from midnight to midnight', () => {
    expect(utcDay('2026-12-01T23:59:59.999Z')).toBe('2026-12-01');
    expect(utcDay('2026-12-02T00:00:00.000Z')).toBe('2026-12-02');
    expect(utcDayBounds('2026-12-31T12:00:00.000Z')).toEqual({
      start: '2026-12-31T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });
});
