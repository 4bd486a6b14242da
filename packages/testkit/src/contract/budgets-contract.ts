import {
  type DomainError,
  ErrorCode,
  type Job,
  type OwnerDayBudget,
  type SpendDecision,
  type TeamId,
  type UsageEntry,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, type StoreHarness } from './store-harness.js';

const NONE: OwnerDayBudget = { maxTokensPerDay: null, maxCostPerDay: null };

/** Contract cases of `Budgets`: team limits, reservations checked atomically, usage by UTC day. */
export function describeBudgetCases(h: () => StoreHarness): void {
  let n = 0;
  const reserve = (teamId: TeamId, job: Job, tokens: number, cost = 0, now = h().now(), owner = NONE) => {
    n += 1;
    return h().store.reserveSpend({
      reservation: { id: `spend_${n}`, teamId, jobId: job.id, tokens, cost },
      now,
      ownerLimits: () => owner,
    });
  };
  const usage = (job: Job, tokens: number, cost: number): UsageEntry => {
    n += 1;
    return {
      id: `usage_${n}`,
      teamId: job.teamId,
      jobId: job.id,
      conversationId: job.conversationId,
      model: 'm',
      inputTokens: tokens - Math.floor(tokens / 2),
      outputTokens: Math.floor(tokens / 2),
      cost,
    };
  };
  const setup = async () => {
    const { team, members } = await h().team();
    const job = at(await h().send(team, [at(members, 0)]), 0);
    return { team, job };
  };
  const okOf = (d: SpendDecision) => d.ok;

  describe('budgets', () => {
    it('sets, shows and removes a team budget; refuses another owner', async () => {
      const { team, job } = await setup();
      await h().store.recordUsage(usage(job, 40, 0.25), h().now());
      expect((await h().store.teamBudgets([team.id])).get(team.id)).toEqual({
        maxTokens: null,
        maxCost: null,
        usedTokens: 40,
        usedCost: 0.25,
      });
      const updated = await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: 1.5 }, h().now());
      expect(updated.id).toBe(team.id);
      expect((await h().store.teamBudgets([team.id])).get(team.id)).toMatchObject({ maxTokens: 100, maxCost: 1.5 });
      await expect(
        h().store.setTeamBudget(BOB, team.id, { maxTokens: 1, maxCost: null }, h().now()),
      ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND } satisfies Partial<DomainError>);
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: null }, h().now());
      expect((await h().store.teamBudgets([team.id])).get(team.id)).toMatchObject({ maxTokens: null, maxCost: null });
    });

    it('tells subscribers of a changed budget with TEAM_CHANGED, and writes nothing when it is unchanged', async () => {
      const { team } = await h().team();
      const seqOf = async () => (await h().store.readEvents(team.id, 0, 1_000)).at(-1)?.seq ?? 0;
      const before = await seqOf();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: null }, h().now());
      const events = await h().store.readEvents(team.id, before, 10);
      expect(events.map((e) => e.kind)).toEqual(['TEAM_CHANGED']);
      const after = await seqOf();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: null }, h().now());
      expect(await seqOf()).toBe(after);
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: null }, h().now());
      expect(await h().store.readEvents(team.id, after, 10)).toHaveLength(1);
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: null }, h().now());
      expect(await seqOf()).toBe(after + 1);
    });

    it("drops a deleted team's budget with it", async () => {
      const { team } = await h().team();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: 2 }, h().now());
      await h().store.deleteTeam(ALICE, team.id, h().now());
      expect((await h().store.teamBudgets([team.id])).get(team.id)).toMatchObject({ maxTokens: null, maxCost: null });
    });

    it("sums a row's input and output apart: counts near 2³¹ each do not overflow the budget's check", async () => {
      const { team, job } = await setup();
      // A store keeps each count as its column holds it (PostgreSQL: integer); their sum is wider.
      const large = { ...usage(job, 0, 0), inputTokens: 2_000_000_000, outputTokens: 2_000_000_000 };
      await h().store.recordUsage(large, h().now());
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 2_147_483_647, maxCost: null }, h().now());
      expect(await reserve(team.id, job, 1)).toMatchObject({ ok: false, budget: 'team', spent: 4_000_000_000 });
      expect((await h().store.teamBudgets([team.id])).get(team.id)?.usedTokens).toBe(4_000_000_000);
      const day = { maxTokensPerDay: 2_147_483_647, maxCostPerDay: null };
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: null }, h().now());
      expect(await reserve(team.id, job, 1, 0, h().now(), day)).toMatchObject({ ok: false, budget: 'owner' });
    });

    it('passes a reservation up to the limit exactly, refuses one past it, naming the team budget', async () => {
      const { team, job } = await setup();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: null }, h().now());
      await h().store.recordUsage(usage(job, 30, 0), h().now());
      expect(await reserve(team.id, job, 60)).toEqual({ ok: true });
      const refused = await reserve(team.id, job, 11);
      expect(refused).toMatchObject({ ok: false, budget: 'team', unit: 'tokens', limit: 100, spent: 90 });
      expect(!refused.ok && refused.message).toMatch(/team's tokens budget/);
      expect(await reserve(team.id, job, 10)).toEqual({ ok: true });
      // Used up: not even the smallest call passes.
      expect((await reserve(team.id, job, 1)).ok).toBe(false);
    });

    it('frees a released reservation and lets a raised or removed budget pass new calls', async () => {
      const { team, job } = await setup();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: 1 }, h().now());
      expect(await reserve(team.id, job, 10, 0.75)).toEqual({ ok: true });
      expect(await reserve(team.id, job, 10, 0.5)).toMatchObject({ ok: false, unit: 'cost' });
      await h().store.releaseSpend('spend_absent');
      await h().store.releaseSpend(`spend_${n - 1}`);
      expect(await reserve(team.id, job, 10, 0.5)).toEqual({ ok: true });
      expect((await reserve(team.id, job, 10, 0.6)).ok).toBe(false);
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: 5 }, h().now());
      expect((await reserve(team.id, job, 10, 0.6)).ok).toBe(true);
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: null, maxCost: null }, h().now());
      expect((await reserve(team.id, job, 10, 100)).ok).toBe(true);
    });

    it("counts an owner's usage and reservations of the UTC day across its teams, not yesterday's", async () => {
      const a = await setup();
      const b = await setup();
      const daily: OwnerDayBudget = { maxTokensPerDay: 100, maxCostPerDay: null };
      // Recorded yesterday (23:59:59 UTC): not counted today.
      await h().store.recordUsage(usage(a.job, 500, 0), '2026-03-01T23:59:59.000Z');
      await h().store.recordUsage(usage(a.job, 50, 0), '2026-03-02T08:00:00.000Z');
      const today = '2026-03-02T09:00:00.000Z';
      expect(await reserve(b.team.id, b.job, 50, 0, today, daily)).toEqual({ ok: true });
      const refused = await reserve(b.team.id, b.job, 1, 0, today, daily);
      expect(refused).toMatchObject({ ok: false, budget: 'owner', spent: 100 });
      expect(!refused.ok && refused.message).toMatch(/daily tokens budget \(UTC 2026-03-02\)/);
      // A new UTC day starts from zero (the reservation was for the day before).
      expect((await reserve(b.team.id, b.job, 100, 0, '2026-03-03T00:00:00.000Z', daily)).ok).toBe(true);
    });

    it('replaces a reservation made again under its id (a call sent again after its server died)', async () => {
      const { team, job } = await setup();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: null }, h().now());
      const again = (tokens: number) =>
        h().store.reserveSpend({
          reservation: { id: 'spend_replayed', teamId: team.id, jobId: job.id, tokens, cost: 0 },
          now: h().now(),
          ownerLimits: () => NONE,
        });
      expect(await again(90)).toEqual({ ok: true });
      // Counted once: the dead server's 90 are not added to the 90 of the call sent again.
      expect(await again(90)).toEqual({ ok: true });
      expect((await reserve(team.id, job, 11)).ok).toBe(false);
      // The replacement holds what it asked: 60 instead of 90.
      expect(await again(60)).toEqual({ ok: true });
      expect(await reserve(team.id, job, 40)).toEqual({ ok: true });
      // Refused, it leaves the one it would have replaced: 60 + 40 still held.
      expect((await again(61)).ok).toBe(false);
      expect((await reserve(team.id, job, 1)).ok).toBe(false);
      await h().store.releaseSpend('spend_replayed');
      expect(await reserve(team.id, job, 60)).toEqual({ ok: true });
    });

    it('leaves a reservation made again by another holder when the first one releases', async () => {
      const { team, job } = await setup();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 100, maxCost: null }, h().now());
      const hold = (holder: string) =>
        h().store.reserveSpend({
          reservation: { id: 'spend_taken_over', teamId: team.id, jobId: job.id, tokens: 90, cost: 0, holder },
          now: h().now(),
          ownerLimits: () => NONE,
        });
      expect(await hold('paused')).toEqual({ ok: true });
      // The server that took the job over sends the call again: its reservation replaces the first.
      expect(await hold('taker')).toEqual({ ok: true });
      // The paused server wakes and releases: the taker's 90 still hold.
      await h().store.releaseSpend('spend_taken_over', 'paused');
      expect((await reserve(team.id, job, 11)).ok).toBe(false);
      await h().store.releaseSpend('spend_taken_over', 'taker');
      expect(await reserve(team.id, job, 11)).toEqual({ ok: true });
    });

    it('lets exactly as many racing reservations pass as the budget holds', async () => {
      const { team, job } = await setup();
      await h().store.setTeamBudget(ALICE, team.id, { maxTokens: 350, maxCost: null }, h().now());
      const now = h().now();
      const decisions = await Promise.all(Array.from({ length: 10 }, () => reserve(team.id, job, 100, 0, now)));
      expect(decisions.filter(okOf)).toHaveLength(3);
    });

    it('refuses NOT_FOUND for a team that is gone', async () => {
      const { job } = await setup();
      await expect(reserve('team_gone' as TeamId, job, 1)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    });
  });
}
