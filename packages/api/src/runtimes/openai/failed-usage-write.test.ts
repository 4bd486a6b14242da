// A failed attempt's usage row (`recordFailedAttempt`) that the database refuses must not replace
// the provider's failure: the call goes on as the provider's answer says (a refusal is retried, a
// cut answer fails the job with its own message), and the refused write is logged. Before, the
// write's error left the call from inside its retry loop: a 429 that reported usage ended the
// turn as 'failed unexpectedly' instead of being retried, and a cut stream lost its message.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  context,
  openAiAgent,
  type RuntimeFixture,
  requestInput,
  settle,
  useRuntimeFixture,
} from '../../../test/openai/runtime-fixture.js';

const fixture = useRuntimeFixture();

/** Makes the database refuse every failed attempt's usage row (its id carries `_failed_`). */
async function refuseFailedUsage(current: RuntimeFixture): Promise<void> {
  await sql
    .raw(
      `CREATE TRIGGER refuse_failed_usage BEFORE INSERT ON model_usage
       WHEN instr(NEW.id, '_failed_') > 0
       BEGIN SELECT RAISE(ABORT, 'usage write refused by the test'); END`,
    )
    .execute(current.database.db);
}

async function run(current: RuntimeFixture) {
  const ctx = context('job_1', openAiAgent());
  const { runId } = await current.runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
  return settle(current.runtime, runId, ctx);
}

/** One streamed chunk with `content` and no finish reason. */
function chunk(content: string): string {
  const choices = [{ index: 0, delta: { content }, finish_reason: null }];
  return JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices });
}

const REPORT = { prompt_tokens: 321, completion_tokens: 7 };

describe('OpenAiRuntime: a failed attempt whose usage row the database refuses', () => {
  it('still retries a refusal that reported usage, and answers', async () => {
    const current = fixture();
    await refuseFailedUsage(current);
    const refusal = JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down' }, usage: REPORT });
    current.provider.enqueue(
      { kind: 'raw-sse', data: [refusal] },
      { kind: 'answer', content: 'after the refusal', usage: { prompt_tokens: 40, completion_tokens: 5 } },
    );
    expect(await run(current)).toEqual({ state: 'completed', answer: 'after the refusal' });
    expect(current.provider.requests).toHaveLength(2);
    expect(current.logger.entries.map((entry) => String(entry.fields?.error))).toContainEqual(
      expect.stringContaining('usage write refused by the test'),
    );
  });

  it("fails a cut answer with the provider's failure, not as an unexpected error", async () => {
    const current = fixture();
    await refuseFailedUsage(current);
    current.provider.enqueue({ kind: 'raw-sse', data: [chunk('Half an answer')] });
    const state = await run(current);
    expect(state.state === 'failed' && state.error).toMatch(/cut stream/);
  });
});
