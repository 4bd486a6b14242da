import { asOwnerId, DEFAULT_ADMISSION_POLICY, type Job, JobErrorCode, JobPhase } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { chatCompletionHandler, FakeChatProvider } from '@agent-teams/testkit/msw';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import { OpenAiRuntime } from '../../src/runtimes/openai/openai-runtime.js';
import { ownerSpendToday } from '../../src/storage/budgets.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';
import { BASE_URL, TEAM_AGENTS, waitFor } from './openai-team-harness.js';

// Two servers (applications with their own pools, schedulers and runtimes) in one process on one
// real PostgreSQL database spend one budget (the owner's daily tokens) at once, against the fake
// provider (msw). Each server admits the requests sent through it (its own team); the provider
// holds every call until both servers have admitted theirs, so their reservations race.

const OWNER = asOwnerId('alice');
const CALL_USAGE = { prompt_tokens: 400, completion_tokens: 100 };
const BUDGET = 6_000;
const server = setupServer();
const provider = new FakeChatProvider();
let pg: FreshPostgres;
const apps: App[] = [];
let open: () => void = () => undefined;
const gate = new Promise<void>((resolve) => {
  open = resolve;
});

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  server.use(chatCompletionHandler(http, BASE_URL, provider));
  // Handlers added later go first: this one holds each call, then lets the fake provider answer.
  server.use(
    http.post(`${BASE_URL}/chat/completions`, async () => {
      await gate;
    }),
  );
  provider.respondWith(() => ({ kind: 'answer', content: 'Done.', usage: CALL_USAGE }));
  pg = await createFreshPostgres('agent_teams_budget_race');
  for (const id of ['srv_a', 'srv_b']) {
    apps.push(
      await openTestApp({
        database: await openDatabase(pg.url, { poolSize: 4 }),
        ids: createRandomIds(),
        catalog: new StaticCatalog(TEAM_AGENTS),
        lease: { serverId: id },
        budgets: { defaultOwner: { maxTokensPerDay: BUDGET, maxCostPerDay: null }, owners: new Map() },
        // One owner and 16 slots: each server admits the 8 heads of its own team.
        scheduler: { admission: { ...DEFAULT_ADMISSION_POLICY, activeJobs: 16, reservedForOthers: 0 } },
        runtimes: ({ database, clock, logger, spend }) => [
          new OpenAiRuntime({
            db: database?.db as never,
            dialect: 'postgres',
            clock,
            logger,
            env: { TEAM_TEST_KEY: 'sk-team' },
            retryBaseMs: 5,
            spend,
          }),
        ],
      }),
    );
  }
}, 60_000);
afterAll(async () => {
  for (const app of apps.splice(0)) await app.close();
  server.close();
  await pg?.drop();
});

describe('one budget spent from two servers on PostgreSQL', () => {
  it('never lets recorded usage pass the budget, and fails the rest BUDGET_EXHAUSTED without calling', {
    timeout: 60_000,
  }, async () => {
    const [a, b] = apps as [App, App];
    const members = Array.from({ length: 8 }, (_, i) => ({ name: `m${i}`, agentId: i % 2 ? 'checker' : 'planner' }));
    const sent: Job[] = [];
    for (const [n, via] of [a, b].entries()) {
      const team = await via.core.teams.create(OWNER, {
        clientRequestId: `t${n}`,
        name: `T${n}`,
        goal: 'Spend',
        members,
      });
      const roster = await via.core.teams.members([team.id]);
      // Three requests per member, far more than the budget holds.
      for (let round = 0; round < 3; round += 1) {
        sent.push(
          ...(await via.core.requests.send(OWNER, {
            teamId: team.id,
            memberIds: roster.map((m) => m.id),
            text: `Round ${round}: spend`,
            clientRequestId: `t${n}-round-${round}`,
          })),
        );
      }
      // This server admitted its team's first round before the other server sends anything.
      await waitFor(async () => {
        const jobs = await via.store.findJobs(sent.map((j) => j.id));
        return jobs.filter((j) => j.phase !== JobPhase.QUEUED).length >= 8 * (n + 1);
      }, `server ${n} admitted its first round`);
    }
    open();
    const ids = sent.map((j) => j.id);
    const done = await waitForAll(a, ids);
    const db = a.database?.db;
    if (!db) throw new Error('no database');
    const spent = (await ownerSpendToday(db, new Date().toISOString())).get(OWNER)?.tokens ?? 0;
    const callTokens = CALL_USAGE.prompt_tokens + CALL_USAGE.completion_tokens;
    // Each call is made only when its whole reservation fits, and its real usage is below it.
    expect(spent).toBeLessThanOrEqual(BUDGET);
    expect(spent).toBe(provider.requests.length * callTokens);
    const failed = done.filter((j) => j.phase === JobPhase.FAILED);
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((j) => j.errorCode))).toEqual(new Set([JobErrorCode.BUDGET_EXHAUSTED]));
    expect(done.filter((j) => j.phase === JobPhase.COMPLETED)).toHaveLength(provider.requests.length);
    // Both servers drove jobs.
    const holders = await db.selectFrom('jobs').select('lease_server').distinct().execute();
    expect(holders.map((h) => h.lease_server).sort()).toEqual(['srv_a', 'srv_b']);
  });
});

/** Waits until every job ended (COMPLETED or FAILED); returns them. */
function waitForAll(app: App, ids: readonly Job['id'][]): Promise<readonly Job[]> {
  return waitFor(
    async () => {
      const jobs = await app.store.findJobs(ids);
      return jobs.every((j) => j.phase === JobPhase.COMPLETED || j.phase === JobPhase.FAILED) ? jobs : null;
    },
    'every job ended',
    45_000,
  );
}
