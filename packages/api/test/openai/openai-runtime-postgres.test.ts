import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { checkCachedInputTokens } from './cached-input-tokens.js';
import { checkCancelledStreamCounted, checkCancelledWaitCounted } from './cancelled-call-usage.js';
import { checkEarlierTurnsWithoutContext } from './earlier-turn-context.js';
import { checkFirstAnswerRide } from './first-answer-ride.js';
import { context, openAiAgent, RecordingTools, requestInput, settle, useRuntimeFixture } from './runtime-fixture.js';

// The runtime's step transactions and its unique (run, step) guard on the real PostgreSQL server.
let pg: FreshPostgres;
beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_openai');
});
afterAll(() => pg.drop());

const fixture = useRuntimeFixture(async () => {
  const database = await openDatabase(pg.url, { poolSize: 4 });
  await sql`TRUNCATE runtime_runs, openai_messages, model_usage, conversation_messages RESTART IDENTITY`.execute(
    database.db,
  );
  return database;
});

describe('OpenAiRuntime on PostgreSQL', () => {
  it("writes a first answer carried with its run's begin as one insert per table (the job write's ride)", () =>
    checkFirstAnswerRide(fixture()));

  it('sends earlier turns without the team context they froze, the current turn with it (decision 0242)', () =>
    checkEarlierTurnsWithoutContext(fixture()));

  it('records the cached input tokens the provider reports and prices them (decision 0243)', () =>
    checkCachedInputTokens(fixture()));

  it('counts a stream cancelled mid-answer at its prompt estimate and the bytes received / 4', () =>
    checkCancelledStreamCounted(fixture()));

  it('counts a non-streamed call cancelled while its answer is awaited at its prompt estimate', () =>
    checkCancelledWaitCounted(fixture()));

  it('runs a streamed turn with parallel tool calls and records usage', async () => {
    const { provider, runtime, database } = fixture();
    provider.enqueue(
      {
        kind: 'answer',
        toolCalls: [
          { id: 'call_a', name: 'read_team_context', arguments: '{}' },
          { id: 'call_b', name: 'read_team_context', arguments: '{}' },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 2 },
      },
      { kind: 'answer', content: 'done', usage: { prompt_tokens: 20, completion_tokens: 3 } },
    );
    const tools = new RecordingTools({ read_team_context: { goal: 'g' } });
    const ctx = context('job_1', openAiAgent(), tools);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
    expect(tools.calls).toHaveLength(2);
    const usage = await database.db
      .selectFrom('model_usage')
      .select(['input_tokens', 'output_tokens', 'cost'])
      .orderBy('id')
      .execute();
    expect(usage.map((u) => [Number(u.input_tokens), Number(u.output_tokens)])).toEqual([
      [10, 2],
      [20, 3],
    ]);
  });

  it('replays a run whose outcome was lost without asking the provider again', async () => {
    const { provider, runtime, restart, database } = fixture();
    provider.enqueue({ kind: 'answer', content: 'once' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await settle(runtime, runId, ctx);
    await database.db.updateTable('runtime_runs').set({ state: 'running' }).where('run_id', '=', runId).execute();
    expect(await settle(restart(), runId, ctx)).toEqual({ state: 'completed', answer: 'once' });
    expect(provider.requests).toHaveLength(1);
  });
});
