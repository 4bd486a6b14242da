import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asJobId, asOwnerId, type TeamId } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { openTestApp } from '../support/test-app.js';

const OWNER = asOwnerId('alice');
const NONE = () => ({ maxTokensPerDay: null, maxCostPerDay: null });
let dir: string | null = null;
const apps: App[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function open(file: string): Promise<App> {
  const app = await openTestApp({ database: file, scheduler: false });
  apps.push(app);
  return app;
}

/** Reserves `tokens` for a model call of `teamId`, as the runtime does before it calls the provider. */
const reserve = (app: App, teamId: TeamId, id: string, tokens: number) =>
  app.store.reserveSpend({
    reservation: { id, teamId, jobId: asJobId(`job_${id}`), tokens, cost: 0 },
    now: new Date().toISOString(),
    ownerLimits: NONE,
  });

/**
 * A server killed (SIGKILL) during model calls leaves their reservations behind; the restarted
 * server sends those calls again, reserving anew. Found under repeated kills: a team that had
 * used 2,970 of its 30,000 tokens failed every new job BUDGET_EXHAUSTED ("28265 of 30000 used or
 * reserved") for the hour a reservation lives. A SQLite file is one server's alone (its lock), so
 * the reservations a server finds in it when it starts are all of one that died.
 */
describe('spend reservations left by a killed server (SQLite file)', () => {
  it('stop counting against the budget when the server starts again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-teams-spend-'));
    const file = join(dir, 'teams.sqlite');
    const first = await open(file);
    const team = await first.core.teams.create(OWNER, {
      clientRequestId: 'team',
      name: 'Budgeted',
      goal: 'g',
      members: [
        { name: 'a', agentId: 'researcher' },
        { name: 'b', agentId: 'writer' },
      ],
    });
    await first.store.setTeamBudget(OWNER, team.id, { maxTokens: 100, maxCost: null }, new Date().toISOString());
    expect(await reserve(first, team.id, 'spend_in_flight', 90)).toEqual({ ok: true });
    // The process dies with the call in flight: nothing releases its reservation.
    await apps.splice(0)[0]?.close();

    const second = await open(file);
    expect(await reserve(second, team.id, 'spend_sent_again', 90)).toEqual({ ok: true });
    // A reservation of this server still counts.
    expect((await reserve(second, team.id, 'spend_another', 90)).ok).toBe(false);
  });
});
