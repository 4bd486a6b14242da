import { asConversationId, asJobId, asOwnerId, type OwnerDayBudget, type TeamId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ownerSpendToday } from '../../src/storage/budgets.js';
import { databaseTargets } from '../support/database-targets.js';
import { openTestApp } from '../support/test-app.js';

const ALICE = asOwnerId('alice');
const DAY_LIMIT: OwnerDayBudget = { maxTokensPerDay: 1_000, maxCostPerDay: null };
const members = [
  { name: 'a', agentId: 'researcher' },
  { name: 'b', agentId: 'writer' },
];

/**
 * The reference (budgets): "deleting a team deletes its budget (its recorded usage stays in the
 * owner's day)". Usage rows outlive their team, but the owner's sums once found them through the
 * `teams` row, so deleting a team that had spent gave its owner the day's budget back.
 */
describe.each(databaseTargets('deleted_team_spend'))("a deleted team's usage in its owner's day (%s)", (_, make) => {
  it('keeps counting against the day budget and in ownerSpendToday', async () => {
    const app = await openTestApp({ database: await make(), scheduler: false });
    try {
      const db = app.database?.db;
      if (!db) throw new Error('no database');
      let n = 0;
      const team = async (): Promise<TeamId> =>
        (await app.core.teams.create(ALICE, { clientRequestId: `t${++n}`, name: `t${n}`, goal: 'g', members })).id;
      const now = new Date().toISOString();
      /** Reserves `tokens` against alice's day and releases at once: true when the call may run. */
      const passes = async (teamId: TeamId, tokens: number): Promise<boolean> => {
        const id = `res_${++n}`;
        const decision = await app.store.reserveSpend({
          reservation: { id, teamId, jobId: asJobId(`job_${id}`), tokens, cost: 0 },
          now,
          ownerLimits: () => DAY_LIMIT,
        });
        await app.store.releaseSpend(id);
        return decision.ok;
      };
      const spent = await team();
      await app.store.recordUsage(
        {
          id: 'usage_1',
          teamId: spent,
          jobId: asJobId('job_spent'),
          conversationId: asConversationId('c_spent'),
          model: 'm',
          inputTokens: 900,
          outputTokens: 90,
          cost: 0,
        },
        now,
      );
      const other = await team();
      // 990 of 1,000 used: a call of 9 or 10 tokens fits, 11 does not.
      expect([await passes(other, 9), await passes(other, 10), await passes(other, 11)]).toEqual([true, true, false]);

      await app.core.teams.delete(ALICE, spent);

      expect([await passes(other, 9), await passes(other, 10), await passes(other, 11)]).toEqual([true, true, false]);
      const fresh = await team();
      expect(await passes(fresh, 11)).toBe(false);
      expect((await ownerSpendToday(db, now)).get('alice')).toEqual({ tokens: 990, cost: 0 });
    } finally {
      await app.close();
    }
  });
});
