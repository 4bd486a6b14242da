import { type Job, JobErrorCode, JobPhase } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOrError } from '../support/chat-provider-server.js';
import { gqlOf } from '../support/test-app.js';
import { OWNER, openTeamHarness, type TeamHarness, waitFor } from './openai-team-harness.js';

const server = setupServer();
let h: TeamHarness;

beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());
afterEach(async () => {
  await h?.close();
  server.resetHandlers();
});

const answer = { kind: 'answer', content: 'Done.', usage: { prompt_tokens: 100, completion_tokens: 20 } } as const;

async function finished(id: string): Promise<Job> {
  return waitFor(async () => {
    const job = await h.job(id as Job['id']);
    return [JobPhase.COMPLETED, JobPhase.FAILED].includes(job.phase as never) ? job : null;
  }, `job ${id} to finish`);
}

const BUDGET = `mutation($input: SetTeamBudgetInput!) { setTeamBudget(input: $input) {
  team { id budget { maxTokens maxCost usedTokens usedCost } } } }`;

describe('budgets stop model calls before they are made', () => {
  it('fails a job BUDGET_EXHAUSTED without calling the provider, and runs new work once the budget is raised', async () => {
    h = await openTeamHarness();
    h.provider.respondWith(() => answer);
    const gql = gqlOf(h.app);
    const { team, lead } = await h.team();
    // Smaller than one call's output allowance (maxOutputTokens, default 1024): no call can pass.
    const set = await gql(BUDGET, { input: { teamId: team.id, maxTokens: 1000, maxCost: null } });
    expect(set.errors).toEqual([]);
    expect(set.data?.setTeamBudget).toMatchObject({
      team: { id: team.id, budget: { maxTokens: 1000, maxCost: null, usedTokens: 0, usedCost: 0 } },
    });
    const stopped = await finished((await h.send(team, lead, 'Plan the release')).id);
    expect(stopped).toMatchObject({ phase: JobPhase.FAILED, errorCode: JobErrorCode.BUDGET_EXHAUSTED });
    expect(stopped.error).toMatch(/team's tokens budget would be exceeded: 0 of 1000/);
    expect(h.provider.requests).toHaveLength(0);

    await gql(BUDGET, { input: { teamId: team.id, maxTokens: 100_000, maxCost: 1 } });
    const done = await finished((await h.send(team, lead, 'Try again')).id);
    expect(done.phase).toBe(JobPhase.COMPLETED);
    // The allowance is also the provider's output limit.
    expect(h.provider.requests.map((r) => (r.body as { max_tokens?: number }).max_tokens)).toEqual([1024]);
    expect((await h.job(stopped.id)).phase).toBe(JobPhase.FAILED);
    const after = await gql('query($id: ID!) { team(id: $id) { budget { maxTokens maxCost usedTokens usedCost } } }', {
      id: team.id,
    });
    expect(after.data?.team).toEqual({
      budget: { maxTokens: 100_000, maxCost: 1, usedTokens: 120, usedCost: 0.00014 },
    });
  });

  it("reserves a call's whole input at the cached price when that is the dearer one (decision 0243)", async () => {
    // At the input price a call would reserve nothing; at the cached price, 1 per input token.
    h = await openTeamHarness({ pricing: { inputPerMillion: 0, outputPerMillion: 0, cachedInputPerMillion: 1e6 } });
    h.provider.respondWith(() => answer);
    const gql = gqlOf(h.app);
    const { team, lead } = await h.team();
    expect((await gql(BUDGET, { input: { teamId: team.id, maxTokens: null, maxCost: 5 } })).errors).toEqual([]);
    const stopped = await finished((await h.send(team, lead, 'Plan the release')).id);
    expect(stopped).toMatchObject({ phase: JobPhase.FAILED, errorCode: JobErrorCode.BUDGET_EXHAUSTED });
    expect(stopped.error).toMatch(/team's cost budget would be exceeded/);
    expect(h.provider.requests).toHaveLength(0);
  });

  it("stops at the owner's daily budget, naming it", async () => {
    h = await openTeamHarness({
      budgets: {
        defaultOwner: { maxTokensPerDay: null, maxCostPerDay: null },
        owners: new Map([[OWNER, { maxTokensPerDay: 500, maxCostPerDay: null }]]),
      },
    });
    h.provider.respondWith(() => answer);
    const { team, lead } = await h.team();
    const stopped = await finished((await h.send(team, lead, 'Plan the release')).id);
    expect(stopped).toMatchObject({ phase: JobPhase.FAILED, errorCode: JobErrorCode.BUDGET_EXHAUSTED });
    expect(stopped.error).toMatch(/Owner alice's daily tokens budget \(UTC \d{4}-\d\d-\d\d\)/);
    expect(h.provider.requests).toHaveLength(0);
  });

  it('counts a call cancelled mid-stream: its prompt estimate and the text received, once', async () => {
    h = await openTeamHarness();
    const text = 'Half an answer, then the person cancels'; // 39 bytes: 10 tokens
    const delta = { index: 0, delta: { content: text }, finish_reason: null };
    const chunk = JSON.stringify({
      id: 'x',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [delta],
    });
    h.provider.enqueue({ kind: 'hang', data: [chunk] }, answer);
    const gql = gqlOf(h.app);
    const { team, lead } = await h.team();
    expect((await gql(BUDGET, { input: { teamId: team.id, maxTokens: 100_000, maxCost: 1 } })).errors).toEqual([]);
    const budget = async () => {
      const read = await gql('query($id: ID!) { team(id: $id) { budget { usedTokens usedCost } } }', { id: team.id });
      const found = read.data?.team as { budget: { usedTokens: number; usedCost: number } } | undefined;
      if (!found) throw new Error(`no budget: ${JSON.stringify(read.errors)}`);
      return found.budget;
    };
    const job = await h.send(team, lead, 'Plan the release');
    await waitFor(() => JSON.stringify(h.progress).includes('then the person cancels'), 'the streamed text');
    await h.core.jobs.cancel(OWNER, job.id);
    await waitFor(async () => (await h.job(job.id)).phase === JobPhase.CANCELLED || null, 'the cancel');
    const used = await waitFor(async () => {
      const current = await budget();
      return current.usedTokens > 0 ? current : null;
    }, 'the cancelled call to be counted');
    const [usage] = await h.core.usage.totals([{ kind: 'job', id: job.id }]);
    expect(usage).toMatchObject({ outputTokens: 10, calls: 1 });
    const input = usage?.inputTokens ?? 0;
    expect(input).toBeGreaterThan(0);
    expect(used.usedTokens).toBe(input + 10);
    // The planner's prices: 1 per million input tokens, 2 per million output tokens.
    expect(used.usedCost).toBeCloseTo((input + 20) / 1e6, 12);

    const done = await finished((await h.send(team, lead, 'Try again')).id);
    expect(done.phase).toBe(JobPhase.COMPLETED);
    expect((await budget()).usedTokens).toBe(input + 10 + 120);
  });

  it('refuses another owner and out-of-range limits', async () => {
    h = await openTeamHarness();
    const { team } = await h.team();
    const bob = gqlOf(h.app, 'tok-bob');
    const foreign = await bob(BUDGET, { input: { teamId: team.id, maxTokens: 5 } });
    expect(foreign.errors[0]?.extensions?.code).toBe('NOT_FOUND');
    const gql = gqlOf(h.app);
    const negative = await gql(BUDGET, { input: { teamId: team.id, maxCost: -1 } });
    expect(negative.errors[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', field: 'maxCost' });
  });
});
