// A model call whose stream failed mid-answer counts against the team's budget, through the whole
// application (GraphQL `Team.budget.usedTokens/usedCost`), as an answered call does.
import { type Job, JobPhase } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTeamHarness, type TeamHarness, waitFor } from '../../../test/openai/openai-team-harness.js';
import { loopbackOrError } from '../../../test/support/chat-provider-server.js';
import { gqlOf } from '../../../test/support/test-app.js';

const server = setupServer();
let h: TeamHarness | null = null;

beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());
afterEach(async () => {
  await h?.close();
  h = null;
  server.resetHandlers();
});

const BUDGET = `mutation($input: SetTeamBudgetInput!) { setTeamBudget(input: $input) {
  team { id budget { maxTokens maxCost usedTokens usedCost } } } }`;

/** One streamed chunk with `content` and the provider's usage report beside it, no finish reason. */
function reportedChunk(content: string): string {
  return JSON.stringify({
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'model-lead',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    usage: { prompt_tokens: 100, completion_tokens: 20 },
  });
}

describe('the budget of a team whose model call failed mid-answer', () => {
  it("counts the provider's report of the failed call in usedTokens and usedCost", async () => {
    const harness = await openTeamHarness();
    h = harness;
    // The answer began, the provider reported its usage, and the stream ended without [DONE].
    harness.provider.enqueue({ kind: 'raw-sse', data: [reportedChunk('Half an answer')] });
    const gql = gqlOf(harness.app);
    const { team, lead } = await harness.team();
    expect((await gql(BUDGET, { input: { teamId: team.id, maxTokens: 100_000, maxCost: 1 } })).errors).toEqual([]);
    const sent = await harness.send(team, lead, 'Plan the release');
    const failed = await waitFor(async () => {
      const job: Job = await harness.job(sent.id);
      return job.phase === JobPhase.FAILED ? job : null;
    }, 'the job to fail');
    expect(failed.error).toMatch(/cut stream/);
    const after = await gql('query($id: ID!) { team(id: $id) { budget { usedTokens usedCost } } }', { id: team.id });
    // The lead's pricing: 1 per million input tokens, 2 per million output tokens.
    expect(after.data?.team).toEqual({ budget: { usedTokens: 120, usedCost: 0.00014 } });
    expect(harness.provider.requests).toHaveLength(1);
  });
});
