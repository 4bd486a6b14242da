import { asOwnerId } from '@agent-teams/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { teamInput } from '../graphql/fixtures.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';

let pg: FreshPostgres;
beforeAll(async () => {
  pg = await createFreshPostgres('event_lag');
});
afterAll(() => pg.drop());

/** The count of `agent_teams_event_lag_seconds` observations in an application's `/metrics`. */
async function lagCount(app: Awaited<ReturnType<typeof openTestApp>>): Promise<number> {
  const text = await (await app.server.yoga.fetch('http://localhost/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith('agent_teams_event_lag_seconds_count '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

it("observes the lag of another server's events, and not of its own", async () => {
  const a = await openTestApp({ database: pg.url });
  const b = await openTestApp({ database: pg.url });
  try {
    await a.core.teams.create(asOwnerId('alice'), teamInput() as unknown as Parameters<typeof a.core.teams.create>[1]);
    // B learns of A's commit through the cluster feed (NOTIFY, else the poll).
    await expect.poll(() => lagCount(b), { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(1);
    expect(await lagCount(a)).toBe(0);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
