import { asRunId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import {
  context,
  openAiAgent,
  RecordingTools,
  requestInput,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';

const fixture = useRuntimeFixture();

describe('OpenAiRuntime: clarification', () => {
  it('ends the turn waiting on ask_clarification and continues it with the answer', async () => {
    const { provider, runtime, database } = fixture();
    provider.enqueue(
      {
        kind: 'answer',
        toolCalls: [
          { id: 'call_ctx', name: 'read_team_context', arguments: '{}' },
          { id: 'call_ask', name: 'ask_clarification', arguments: '{"question":"Which region?"}' },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      },
      { kind: 'answer', content: 'Deploying to EU.', usage: { prompt_tokens: 80, completion_tokens: 6 } },
    );
    const tools = new RecordingTools({ read_team_context: { goal: 'Ship it' } });
    const ctx = context('job_1', openAiAgent(), tools);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Deploy'), context: ctx });
    const waiting = await settle(runtime, runId, ctx);
    expect(waiting).toEqual({
      state: 'waiting',
      input: { kind: 'CLARIFICATION', requestId: 'job_1:call_ask', question: 'Which region?' },
    });
    expect(tools.calls.map((c) => c.name)).toEqual(['read_team_context']);

    const response = {
      runKey: 'job_1:r1',
      inputRequestId: 'job_1:call_ask',
      kind: 'CLARIFICATION' as const,
      value: 'EU',
      clientRequestId: 'c1',
    };
    await expect(
      runtime.resume({ runKey: 'job_1:r1', runId, response: { ...response, inputRequestId: 'other' }, context: ctx }),
    ).rejects.toMatchObject({ kind: 'rejected' });
    const resumed = await runtime.resume({ runKey: 'job_1:r1', runId, response, context: ctx });
    expect(resumed.runId).not.toBe(runId);
    expect(await settle(runtime, resumed.runId, ctx)).toEqual({ state: 'completed', answer: 'Deploying to EU.' });

    const second = provider.requests[1]?.body.messages ?? [];
    const answer = second.find((m) => m.role === 'tool' && m.tool_call_id === 'call_ask');
    expect(JSON.parse(answer?.content ?? '{}')).toEqual({ answer: 'EU', from: 'a person (the team owner)' });
    const rows = await database.db.selectFrom('openai_messages').select(['role', 'tool_name']).orderBy('seq').execute();
    expect(rows.map((r) => `${r.role}:${r.tool_name ?? ''}`)).toEqual([
      'user:',
      'assistant:',
      'tool:read_team_context',
      'tool:ask_clarification',
      'assistant:',
    ]);
  });
});

describe('OpenAiRuntime: idempotency after a crash', () => {
  it('continues from the persisted answer instead of asking the provider again', async () => {
    const { provider, runtime, restart } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_1', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'final' },
    );
    let started = false;
    const stuck = {
      invoke: () => {
        started = true;
        return new Promise(() => {});
      },
    };
    const ctx = context('job_1', openAiAgent(), stuck);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1 && started, 'the tool call to start');
    runtime.dispose(); // the process dies while the tool runs; the model answer is already durable

    const again = restart();
    const tools = new RecordingTools({ read_team_context: { goal: 'Ship it' } });
    const restartCtx = context('job_1', openAiAgent(), tools);
    expect(await again.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: restartCtx })).toEqual({
      runId,
    });
    expect(await settle(again, runId, restartCtx)).toEqual({ state: 'completed', answer: 'final' });
    expect(provider.requests).toHaveLength(2);
    expect(tools.calls).toHaveLength(1);
  });

  it('does not call the provider again for a turn whose final answer was persisted', async () => {
    const { provider, runtime, restart, database } = fixture();
    provider.enqueue({ kind: 'answer', content: 'answered once' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await settle(runtime, runId, ctx);
    // As if the process died between persisting the answer and recording the run's outcome.
    await database.db.updateTable('runtime_runs').set({ state: 'running' }).where('run_id', '=', runId).execute();
    const again = restart();
    expect(await settle(again, asRunId(runId), ctx)).toEqual({ state: 'completed', answer: 'answered once' });
    expect(provider.requests).toHaveLength(1);
  });
  it('lets only one of two executions of a run (two servers) write each step', async () => {
    const { provider, runtime, restart, database } = fixture();
    provider.respondWith(() => ({
      kind: 'answer',
      content: 'same answer',
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }));
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    const other = restart();
    const [a, b] = await Promise.all([settle(runtime, runId, ctx), settle(other, runId, ctx)]);
    expect(a).toEqual({ state: 'completed', answer: 'same answer' });
    expect(b).toEqual(a);
    const assistant = await database.db
      .selectFrom('openai_messages')
      .select('step')
      .where('role', '=', 'assistant')
      .execute();
    expect(assistant).toEqual([{ step: 1 }]);
    expect(await database.db.selectFrom('model_usage').select('id').execute()).toHaveLength(1);
  });
});

describe('OpenAiRuntime: round limit', () => {
  it('disables tools after maxToolRounds and keeps the text answer', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_1', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'best effort answer' },
    );
    const ctx = context('job_1', openAiAgent({ maxToolRounds: 1 }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'best effort answer' });
    expect(provider.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'none']);
  });

  it('fails when the model still only calls tools past the limit', async () => {
    const { provider, runtime } = fixture();
    provider.respondWith(() => ({
      kind: 'answer',
      toolCalls: [{ id: 'call_x', name: 'read_team_context', arguments: '{}' }],
    }));
    const ctx = context('job_1', openAiAgent({ maxToolRounds: 2 }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state.state === 'failed' && state.error).toMatch(/maxToolRounds/);
    expect(provider.requests).toHaveLength(3);
  });
});
