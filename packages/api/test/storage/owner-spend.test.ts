import { asConversationId, asJobId, asOwnerId, type TeamId } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { ownerSpendToday } from '../../src/storage/budgets.js';
import { openTestApp } from '../support/test-app.js';

let app: App;
beforeAll(async () => {
  app = await openTestApp({ scheduler: false });
});
afterAll(() => app.close());

const usage = (id: string, teamId: TeamId, tokens: number, cost: number) => ({
  id,
  teamId,
  jobId: asJobId(`job_${id}`),
  conversationId: asConversationId(`c_${id}`),
  model: 'm',
  inputTokens: tokens,
  outputTokens: 1,
  cost,
});

describe('ownerSpendToday', () => {
  it("sums each owner's recorded usage of the UTC day, leaving other days out", async () => {
    const members = [
      { name: 'a', agentId: 'researcher' },
      { name: 'b', agentId: 'writer' },
    ];
    const create = (owner: string) =>
      app.core.teams.create(asOwnerId(owner), { clientRequestId: `t-${owner}`, name: owner, goal: 'g', members });
    const [alice, bob] = [await create('alice'), await create('bob')];
    const now = '2026-12-01T10:00:00.000Z';
    await app.store.recordUsage(usage('u1', alice.id, 99, 0.5), now);
    await app.store.recordUsage(usage('u2', alice.id, 9, 0.25), '2026-12-01T23:59:59.999Z');
    await app.store.recordUsage(usage('u3', alice.id, 1000, 9), '2026-11-30T23:59:59.999Z');
    await app.store.recordUsage(usage('u4', bob.id, 4, 0), '2026-12-01T00:00:00.000Z');
    const db = app.database?.db;
    if (!db) throw new Error('no database');
    expect(await ownerSpendToday(db, now)).toEqual(
      new Map([
        ['alice', { tokens: 110, cost: 0.75 }],
        ['bob', { tokens: 5, cost: 0 }],
      ]),
    );
  });
});
