import { asJobId, asOwnerId, type OwnerDayBudget } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { openTestApp } from '../support/test-app.js';

let app: App;
beforeAll(async () => {
  app = await openTestApp({ scheduler: false });
});
afterAll(() => app.close());

const NONE: OwnerDayBudget = { maxTokensPerDay: null, maxCostPerDay: null };
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

/** Reserves 10 tokens for a call of a fresh team of `owner`, with `ownerLimits` as the day budget. */
async function reserve(owner: string, ownerLimits: OwnerDayBudget, teamBudget: number | null) {
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
    ownerLimits: () => ownerLimits,
  });
}

describe('spend reservations (SQLite store)', () => {
  it('writes no reservation when no budget applies, and one when a team or an owner budget does', async () => {
    const before = await reservationRows();
    expect(await reserve('unlimited', NONE, null)).toEqual({ ok: true });
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
});
