// What model calls that got no answer cost a team, where budgets see it: the store's model_usage
// rows and GraphQL's `Team.budget`, through the whole application on SQLite and on PostgreSQL,
// against a provider on loopback whose every answer the test writes. A non-streamed answer that
// broke off or is not JSON counts as a stream that failed at the same point does (the prompt
// estimate and the answer text received / 4); a request whose answer had not begun by the turn
// deadline counts its prompt estimate, as a cancel at that moment does; a refusal the provider
// reported usage for counts once beside the one reservation its call holds while it is sent again.
import type { ServerResponse } from 'node:http';
import { asJobId, type Job, JobErrorCode, JobPhase, type TeamId } from '@agent-teams/core';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOrError } from '../support/chat-provider-server.js';
import { databaseTargets } from '../support/database-targets.js';
import { type LoopbackProvider, startLoopbackProvider } from '../support/loopback-provider.js';
import { gqlOf } from '../support/test-app.js';
import { openTeamHarness, type TeamHarness, type TeamHarnessOptions, waitFor } from './openai-team-harness.js';

/** The output allowance each call reserves (`maxOutputTokens`'s default). */
const ALLOWANCE = 1024;
/** The lead's prices (`TEAM_AGENTS`' planner), per million tokens. */
const INPUT_PRICE = 1;
const OUTPUT_PRICE = 2;

const BUDGET = `mutation($input: SetTeamBudgetInput!) { setTeamBudget(input: $input) {
  team { id budget { maxTokens } } } }`;

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());

let h: TeamHarness | null = null;
let provider: LoopbackProvider | null = null;
/** Requests the provider holds until the test answers them, oldest first. */
const held: ServerResponse[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  await provider?.close();
  provider = null;
  held.length = 0;
});

/** The application on `database` with its agents calling a provider that holds every request. */
async function open(database: string, opts: TeamHarnessOptions = {}): Promise<TeamHarness> {
  provider = await startLoopbackProvider((_request, res) => held.push(res));
  h = await openTeamHarness({ ...opts, database, settings: { baseUrl: provider.baseUrl, ...opts.settings } });
  return h;
}

/** The next request the provider holds, once it came. */
function nextRequest(): Promise<ServerResponse> {
  return waitFor(() => held.shift() ?? null, 'a request to the provider');
}

/** A team with `maxTokens`, and the lead's job for one request. */
async function sendWithBudget(harness: TeamHarness, maxTokens: number) {
  const { team, lead } = await harness.team();
  const set = await gqlOf(harness.app)(BUDGET, { input: { teamId: team.id, maxTokens, maxCost: null } });
  expect(set.errors).toEqual([]);
  return { team, job: await harness.send(team, lead, 'Plan the release') };
}

/** The prompt estimate of the job's call in flight: its reservation less the output allowance. */
async function promptEstimate(harness: TeamHarness, job: Job): Promise<number> {
  const row = await harness.database.db
    .selectFrom('spend_reservations')
    .select('tokens')
    .where('id', '=', `spend_${job.id}`)
    .executeTakeFirstOrThrow();
  return Number(row.tokens) - ALLOWANCE;
}

/** The job once it completed or failed. */
async function ended(harness: TeamHarness, job: Job): Promise<Job> {
  return waitFor(async () => {
    const now = await harness.job(job.id);
    return now.phase === JobPhase.COMPLETED || now.phase === JobPhase.FAILED ? now : null;
  }, `job ${job.id} to end`);
}

/** The team's usage rows (tokens only), oldest first. */
async function usageRows(harness: TeamHarness, teamId: TeamId) {
  const rows = await harness.database.db
    .selectFrom('model_usage')
    .select(['input_tokens', 'cached_input_tokens', 'output_tokens'])
    .where('team_id', '=', teamId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    input: Number(row.input_tokens),
    cached: Number(row.cached_input_tokens),
    output: Number(row.output_tokens),
  }));
}

/** `Team.budget`'s usage, through GraphQL. */
async function budgetUsed(harness: TeamHarness, teamId: TeamId) {
  const read = await gqlOf(harness.app)('query($id: ID!) { team(id: $id) { budget { usedTokens usedCost } } }', {
    id: teamId,
  });
  const found = read.data?.team as { budget: { usedTokens: number; usedCost: number } } | undefined;
  if (!found) throw new Error(`no budget: ${JSON.stringify(read.errors)}`);
  return found.budget;
}

const TEXT = 'Ship it — then "check"'; // 24 UTF-8 bytes: an em dash (3) and two escaped quotes
const ARGS = '{"query":"plan"}'; // 16 bytes
/** A whole non-streamed answer with text and a tool call. */
const COMPLETE = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'model-lead',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: TEXT,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_team_history', arguments: ARGS } }],
      },
    },
  ],
});
/** Where the arguments' JSON text begins in {@link COMPLETE}. */
const ARGS_AT = COMPLETE.indexOf('"arguments":"') + '"arguments":"'.length;

const BROKEN_ANSWERS = [
  {
    name: 'broke off inside a tool call\'s arguments (at `{\\"query\\"`: 8 of their bytes)',
    error: /answer broke off/,
    bytes: 24 + 8,
    answer: (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(COMPLETE.length) });
      res.write(COMPLETE.slice(0, ARGS_AT + 10));
      setTimeout(() => res.destroy(), 20);
    },
  },
  {
    name: 'is not JSON (its last brace missing)',
    error: /malformed response/,
    bytes: 24 + 16,
    answer: (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(COMPLETE.slice(0, -1));
    },
  },
];

describe.each(databaseTargets('agent_teams_unanswered_spend'))(
  'the spend of a call without an answer (%s)',
  (_name, make) => {
    for (const broken of BROKEN_ANSWERS) {
      it(`counts a non-streamed answer that ${broken.name} at its prompt estimate and the text received / 4`, async () => {
        const harness = await open(await make(), { settings: { stream: false } });
        const { team, job } = await sendWithBudget(harness, 100_000);
        const res = await nextRequest();
        const input = await promptEstimate(harness, job);
        broken.answer(res);
        const failed = await ended(harness, job);
        expect(failed.phase).toBe(JobPhase.FAILED);
        expect(failed.error).toMatch(broken.error);
        const output = Math.ceil(broken.bytes / 4);
        expect(await usageRows(harness, team.id)).toEqual([{ input, cached: 0, output }]);
        const used = await budgetUsed(harness, team.id);
        expect(used.usedTokens).toBe(input + output);
        expect(used.usedCost).toBeCloseTo((input * INPUT_PRICE + output * OUTPUT_PRICE) / 1e6, 12);
        expect(provider?.seen).toHaveLength(1);
      });
    }

    it('counts a request whose answer had not begun by the turn deadline at its prompt estimate', async () => {
      const harness = await open(await make(), { timeoutMs: 1_500 });
      const { team, job } = await sendWithBudget(harness, 100_000);
      await nextRequest();
      const input = await promptEstimate(harness, job);
      // Never answered: the turn's deadline ends the call (the runtime's wait for the answer, or
      // the scheduler's cancel of the turn, whichever comes first: both count the same).
      const failed = await ended(harness, job);
      expect(failed).toMatchObject({ phase: JobPhase.FAILED, errorCode: JobErrorCode.TIMEOUT });
      expect(
        await waitFor(async () => (await usageRows(harness, team.id)).at(0) ?? null, 'the call to be counted'),
      ).toEqual({ input, cached: 0, output: 0 });
      expect(await usageRows(harness, team.id)).toHaveLength(1);
      expect((await budgetUsed(harness, team.id)).usedTokens).toBe(input);
    });

    it("counts a refusal's usage report once, beside the one reservation its call holds while it is sent again", async () => {
      const harness = await open(await make());
      const maxTokens = 100_000;
      const { team, job } = await sendWithBudget(harness, maxTokens);
      const refusal = { error: { message: 'Slow down' }, usage: { prompt_tokens: 300, completion_tokens: 0 } };
      (await nextRequest())
        .writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1' })
        .end(JSON.stringify(refusal));
      const again = await nextRequest();
      // The call is sent again, its refused attempt counted: the budget holds 300 tokens used and the
      // call's one reservation, each once. A reservation of another job takes exactly what is left.
      expect(await usageRows(harness, team.id)).toEqual([{ input: 300, cached: 0, output: 0 }]);
      const reservations = await harness.database.db
        .selectFrom('spend_reservations')
        .select(['id', 'tokens'])
        .execute();
      expect(reservations.map((row) => row.id)).toEqual([`spend_${job.id}`]);
      const reservation = Number(reservations[0]?.tokens);
      const left = maxTokens - 300 - reservation;
      const reserve = (tokens: number) =>
        harness.store.reserveSpend({
          reservation: { id: 'spend_probe', teamId: team.id, jobId: asJobId('job_probe'), tokens, cost: 0 },
          now: new Date().toISOString(),
          ownerLimits: () => ({ maxTokensPerDay: null, maxCostPerDay: null }),
        });
      expect((await reserve(left + 1)).ok).toBe(false);
      expect((await reserve(left)).ok).toBe(true);
      await harness.store.releaseSpend('spend_probe');

      const chunk = { choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] };
      const usage = { choices: [], usage: { prompt_tokens: 400, completion_tokens: 20 } };
      again.writeHead(200, { 'content-type': 'text/event-stream' });
      again.end(
        [chunk, usage, '[DONE]'].map((d) => `data: ${typeof d === 'string' ? d : JSON.stringify(d)}\n\n`).join(''),
      );
      expect(await ended(harness, job)).toMatchObject({ phase: JobPhase.COMPLETED, result: { text: 'Done.' } });
      expect(await usageRows(harness, team.id)).toEqual([
        { input: 300, cached: 0, output: 0 },
        { input: 400, cached: 0, output: 20 },
      ]);
      expect((await budgetUsed(harness, team.id)).usedTokens).toBe(720);
      expect(await harness.database.db.selectFrom('spend_reservations').select('id').execute()).toEqual([]);
    });

    it('releases a call reserved only when sent again, under a budget set after its first reservation found none', async () => {
      const harness = await open(await make());
      const { team, lead } = await harness.team();
      const job = await harness.send(team, lead, 'Plan the release');
      const first = await nextRequest();
      const reservations = () => harness.database.db.selectFrom('spend_reservations').select('id').execute();
      expect(await reservations()).toEqual([]);
      const set = await gqlOf(harness.app)(BUDGET, { input: { teamId: team.id, maxTokens: 100_000, maxCost: null } });
      expect(set.errors).toEqual([]);
      const usage = { prompt_tokens: 300, completion_tokens: 0 };
      first.writeHead(429, { 'retry-after-ms': '1' }).end(JSON.stringify({ error: { message: 'Slow down' }, usage }));
      const again = await nextRequest();
      // The billed refusal made the call reserve again, and the budget now applies: a row is held.
      expect(await reservations()).toEqual([{ id: `spend_${job.id}` }]);
      const done = { choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] };
      again
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(`data: ${JSON.stringify(done)}\n\ndata: [DONE]\n\n`);
      expect(await ended(harness, job)).toMatchObject({ phase: JobPhase.COMPLETED });
      // Released with the call (it used to stay, holding the budget for an hour).
      expect(await reservations()).toEqual([]);
    });

    it.each([
      ['fits exactly', 0, JobPhase.COMPLETED],
      ['passes it by one token', 1, JobPhase.FAILED],
    ])(
      'sends a billed refusal again only while the budget still holds the call: one that %s',
      async (_n, over, phase) => {
        const harness = await open(await make());
        const maxTokens = 100_000;
        const { team, job } = await sendWithBudget(harness, maxTokens);
        const first = await nextRequest();
        const reservation = ALLOWANCE + (await promptEstimate(harness, job));
        // The refusal's report leaves room for the call's reservation, exactly or one token short.
        const usage = { prompt_tokens: maxTokens - reservation + over, completion_tokens: 0 };
        first.writeHead(429, { 'retry-after-ms': '1' }).end(JSON.stringify({ error: { message: 'Slow down' }, usage }));
        if (phase === JobPhase.COMPLETED) {
          (await nextRequest())
            .writeHead(200, { 'content-type': 'text/event-stream' })
            .end(
              `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
            );
        }
        const job2 = await ended(harness, job);
        expect(job2.phase).toBe(phase);
        if (phase === JobPhase.FAILED) expect(job2.errorCode).toBe('BUDGET_EXHAUSTED');
        // Refused: never sent again, and nothing past the budget.
        if (phase === JobPhase.FAILED) expect(held).toHaveLength(0);
        expect((await usageRows(harness, team.id))[0]).toEqual({ input: usage.prompt_tokens, cached: 0, output: 0 });
        expect(await harness.database.db.selectFrom('spend_reservations').select('id').execute()).toEqual([]);
      },
    );
  },
);
