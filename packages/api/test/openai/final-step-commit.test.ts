import { describe, expect, it } from 'vitest';
import type { OpenAiRuntime } from '../../src/runtimes/openai/openai-runtime.js';
import { context, openAiAgent, requestInput, runtimeOver, settle, useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

/** A runtime over the fixture's database whose clock moves 1 ms at every reading. */
function tickingRuntime(): OpenAiRuntime {
  let now = Date.parse('2026-12-01T10:00:00.000Z');
  return runtimeOver(fixture(), { nowMs: () => (now += 1) });
}

async function runOf(runId: string) {
  const { database } = fixture();
  const run = await database.db
    .selectFrom('runtime_runs')
    .select(['state', 'updated_at'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  const answer = await database.db
    .selectFrom('openai_messages')
    .select('created_at')
    .where('run_id', '=', runId)
    .where('role', '=', 'assistant')
    .orderBy('step', 'desc')
    .executeTakeFirstOrThrow();
  return { run, answer };
}

describe('OpenAiRuntime: the last step and the outcome', () => {
  it("records a turn's outcome in the commit of its final answer (one transaction, one timestamp)", async () => {
    const { provider } = fixture();
    provider.enqueue({ kind: 'answer', content: 'done' });
    const runtime = tickingRuntime();
    const ctx = context('job_1', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
      const { run, answer } = await runOf(runId);
      expect(run.state).toBe('completed');
      // Written apart, the outcome would carry a later reading of the ticking clock.
      expect(run.updated_at).toBe(answer.created_at);
    } finally {
      await runtime.dispose();
    }
  });

  it('records the outcome apart when the answer leaves tool calls to run (the turn goes on)', async () => {
    const { provider } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_1', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'after the tool' },
    );
    const runtime = tickingRuntime();
    const ctx = context('job_2', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_2', input: requestInput('job_2', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'after the tool' });
      const { run, answer } = await runOf(runId);
      // The final answer (step 2) still commits with the outcome; the first answer did not end the turn.
      expect(run.updated_at).toBe(answer.created_at);
      expect(provider.requests).toHaveLength(2);
    } finally {
      await runtime.dispose();
    }
  });
});
