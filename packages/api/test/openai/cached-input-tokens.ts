import { asJobId } from '@agent-teams/core';
import { expect } from 'vitest';
import { usageTotals } from '../../src/storage/usage.js';
import { context, openAiAgent, type RuntimeFixture, requestInput, settle } from './runtime-fixture.js';

/**
 * Three calls of one member whose provider reports cached input tokens (decision 0243): a
 * streamed answer (the usage chunk), a non-streamed one, and a streamed one whose report claims
 * more cached tokens than input. Each call's row keeps its cached count, at most its input; its
 * cost prices the cached part at `cachedInputPerMillion`; the usage totals sum them.
 */
export async function checkCachedInputTokens(current: RuntimeFixture): Promise<void> {
  const { provider, runtime, database } = current;
  provider.enqueue(
    {
      kind: 'answer',
      content: 'first',
      usage: { prompt_tokens: 1000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 768 } },
    },
    {
      kind: 'answer',
      content: 'second',
      usage: { prompt_tokens: 2000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 1024 } },
    },
    {
      kind: 'answer',
      content: 'third',
      usage: { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 64 } },
    },
  );
  const pricing = { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 };
  for (const [index, stream] of [true, false, true].entries()) {
    const jobId = `job_${index + 1}`;
    const ctx = context(jobId, openAiAgent({ stream, pricing }));
    const { runId } = await runtime.start({ runKey: jobId, input: requestInput(jobId, 'Go'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toMatchObject({ state: 'completed' });
  }
  const rows = await database.db
    .selectFrom('model_usage')
    .select(['job_id', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'cost'])
    .orderBy('job_id')
    .execute();
  expect(rows.map((row) => [row.job_id, Number(row.input_tokens), Number(row.cached_input_tokens)])).toEqual([
    ['job_1', 1000, 768],
    ['job_2', 2000, 1024],
    ['job_3', 10, 10],
  ]);
  const costs = rows.map((row) => Number(row.cost));
  expect(costs[0]).toBeCloseTo((232 * 2 + 768 * 0.5 + 100 * 8) / 1e6, 12);
  expect(costs[1]).toBeCloseTo((976 * 2 + 1024 * 0.5 + 50 * 8) / 1e6, 12);
  expect(costs[2]).toBeCloseTo((10 * 0.5 + 1 * 8) / 1e6, 12);
  const conversation = context('job_1', openAiAgent()).conversationId;
  const totals = await usageTotals(database.db, [
    { kind: 'conversation', id: conversation },
    { kind: 'job', id: asJobId('job_2') },
  ]);
  expect(totals.get(`conversation:${conversation}`)).toMatchObject({
    inputTokens: 3010,
    cachedInputTokens: 1802,
    outputTokens: 151,
    calls: 3,
  });
  expect(totals.get('job:job_2')).toMatchObject({ inputTokens: 2000, cachedInputTokens: 1024, calls: 1 });
}
