import { asJobId, asOwnerId, type Budgets, NO_BUDGET_POLICY, type OwnerDayBudget } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { createSpendGuard, heldByExecution } from '../../src/runtimes/spend-guard.js';
import { openTestApp } from '../support/test-app.js';

let app: App;
beforeAll(async () => {
  app = await openTestApp({ scheduler: false });
});
afterAll(() => app.close());

const NONE: OwnerDayBudget = { maxTokensPerDay: null, maxCostPerDay: null };
const SILENT = { info: () => {}, warn: () => {}, error: () => {} };
const members = [
  { name: 'a', agentId: 'researcher' },
  { name: 'b', agentId: 'writer' },
];
let n = 0;

async function reservationRows(): Promise<number> {
  const db = app.database?.db;
  if (!db) throw new Error('no database');
  const row = await db
    .selectFrom('spend_reservations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Reserves 10 tokens for a call of a fresh team of `owner`, with `ownerLimits` as the day budget
 * (`limitsRead`: the day budget as each read of it finds it).
 */
async function reserve(
  owner: string,
  ownerLimits: OwnerDayBudget,
  teamBudget: number | null,
  limitsRead: () => OwnerDayBudget = () => ownerLimits,
) {
  n += 1;
  const team = await app.core.teams.create(asOwnerId(owner), {
    clientRequestId: `spend-${n}`,
    name: `spend ${n}`,
    goal: 'g',
    members,
  });
  const now = new Date().toISOString();
  if (teamBudget !== null)
    await app.store.setTeamBudget(asOwnerId(owner), team.id, { maxTokens: teamBudget, maxCost: null }, now);
  return app.store.reserveSpend({
    reservation: { id: `spend_res_${n}`, teamId: team.id, jobId: asJobId(`job_${n}`), tokens: 10, cost: 0 },
    now,
    ownerLimits: limitsRead,
  });
}

describe('spend reservations (SQLite store)', () => {
  it('writes no reservation when no budget applies, and one when a team or an owner budget does', async () => {
    const before = await reservationRows();
    expect(await reserve('unlimited', NONE, null)).toEqual({ ok: true, held: false });
    // Nothing to hold the call against: no row, so the call's transaction has no write to commit.
    expect(await reservationRows()).toBe(before);
    expect(await reserve('team-budget', NONE, 100)).toEqual({ ok: true });
    expect(await reservationRows()).toBe(before + 1);
    expect(await reserve('owner-budget', { maxTokensPerDay: null, maxCostPerDay: 5 }, null)).toEqual({ ok: true });
    expect(await reservationRows()).toBe(before + 2);
    // A budget that is too small still refuses (the checks run whenever a budget applies).
    expect((await reserve('tiny-budget', NONE, 9)).ok).toBe(false);
    expect(await reservationRows()).toBe(before + 2);
  });

  it('says nothing was held when the budget the first read saw is gone under the lock', async () => {
    const before = await reservationRows();
    // The owner's day budget applies when read without a transaction, and no more under the lock.
    const reads: OwnerDayBudget[] = [{ maxTokensPerDay: 100, maxCostPerDay: null }, NONE];
    const gone = () => reads.shift() ?? NONE;
    expect(await reserve('budget-gone', NONE, null, gone)).toEqual({ ok: true, held: false });
    expect(await reservationRows()).toBe(before);
  });
});

describe('the spend guard', () => {
  it('releases nothing after a call no budget applies to, and releases a held reservation', async () => {
    const released: string[] = [];
    const store = {
      reserveSpend: app.store.reserveSpend.bind(app.store),
      releaseSpend: async (id: string) => {
        released.push(id);
        await app.store.releaseSpend(id);
      },
    } as unknown as Budgets;
    const team = async (owner: string, budget: number | null) => {
      n += 1;
      const made = await app.core.teams.create(asOwnerId(owner), {
        clientRequestId: `g-${n}`,
        name: `g ${n}`,
        goal: 'g',
        members,
      });
      if (budget !== null) {
        await app.store.setTeamBudget(
          asOwnerId(owner),
          made.id,
          { maxTokens: budget, maxCost: null },
          new Date().toISOString(),
        );
      }
      return made.id;
    };
    const guard = createSpendGuard({
      store,
      policy: NO_BUDGET_POLICY,
      clock: { nowMs: () => Date.now() },
      logger: SILENT,
    });
    const free = await guard.reserve({
      teamId: await team('guard-free', null),
      jobId: asJobId('job_free'),
      tokens: 10,
      cost: 0,
    });
    if (!free.ok) throw new Error('refused');
    await free.release();
    expect(released).toEqual([]);
    const before = await reservationRows();
    const held = await guard.reserve({
      teamId: await team('guard-held', 100),
      jobId: asJobId('job_held'),
      tokens: 10,
      cost: 0,
    });
    if (!held.ok) throw new Error('refused');
    expect(await reservationRows()).toBe(before + 1);
    await held.release();
    expect(released).toHaveLength(1);
    expect(await reservationRows()).toBe(before);
  });

  /** A guard over the app's store, and a fresh team of `owner` with a budget of 100 tokens. */
  async function guardAndTeam(owner: string) {
    const guard = createSpendGuard({
      store: app.store,
      policy: NO_BUDGET_POLICY,
      clock: { nowMs: () => Date.now() },
      logger: SILENT,
    });
    n += 1;
    const made = await app.core.teams.create(asOwnerId(owner), {
      clientRequestId: `r-${n}`,
      name: `r ${n}`,
      goal: 'g',
      members,
    });
    await app.store.setTeamBudget(
      asOwnerId(owner),
      made.id,
      { maxTokens: 100, maxCost: null },
      new Date().toISOString(),
    );
    return { guard, made };
  }

  it("holds one reservation per job: a call sent again after its server died replaces the dead server's", async () => {
    const { guard, made } = await guardAndTeam('guard-replay');
    const call = { teamId: made.id, jobId: asJobId('job_replayed'), tokens: 90, cost: 0 };
    // The first server reserved and died: nothing released it.
    expect((await guard.reserve(call)).ok).toBe(true);
    // Its replacement sends the same call again: before, 90 + 90 of 100 was refused for an hour.
    const again = await guard.reserve(call);
    expect(again.ok).toBe(true);
    // Another job's call still sees the 90 held.
    expect((await guard.reserve({ ...call, jobId: asJobId('job_other'), tokens: 11 })).ok).toBe(false);
    if (again.ok) await again.release();
    expect((await guard.reserve({ ...call, jobId: asJobId('job_other'), tokens: 11 })).ok).toBe(true);
  });

  it("lets an execution that lost its job release only its own reservation, not the taker's", async () => {
    const { guard, made } = await guardAndTeam('guard-takeover');
    const call = { teamId: made.id, jobId: asJobId('job_taken_over'), tokens: 90, cost: 0 };
    const paused = heldByExecution(guard);
    const taker = heldByExecution(guard);
    const first = await paused?.reserve(call);
    const second = await taker?.reserve(call);
    if (!first?.ok || !second?.ok) throw new Error('refused');
    const other = { ...call, jobId: asJobId('job_beside'), tokens: 11 };
    // The paused execution wakes and releases: the taker's call is still held.
    await first.release();
    expect((await guard.reserve(other)).ok).toBe(false);
    await second.release();
    const after = await guard.reserve(other);
    expect(after.ok).toBe(true);
    if (after.ok) await after.release();
  });
});
