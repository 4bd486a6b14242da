import { asRunId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { serveChatProvider } from '../support/chat-provider-server.js';
import {
  context,
  openAiAgent,
  RecordingTools,
  requestInput,
  StuckTools,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';

const fixture = useRuntimeFixture();

/** One streamed chunk carrying `content`, as the provider sends it. */
function contentChunk(content: string): string {
  return JSON.stringify({
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });
}

describe('OpenAiRuntime: faults', () => {
  it('retries a 429 and then succeeds', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue(
      { kind: 'error', status: 429, headers: { 'retry-after-ms': '10' } },
      { kind: 'answer', content: 'after the limit' },
    );
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'after the limit' });
    expect(provider.requests).toHaveLength(2);
  });

  it('retries a 500, and fails with a clear message when 5xx outlasts the turn deadline', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'error', status: 500 }, { kind: 'answer', content: 'recovered' });
    const ctx = context('job_1', openAiAgent());
    const first = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    expect(await settle(runtime, first.runId, ctx)).toEqual({ state: 'completed', answer: 'recovered' });

    provider.respondWith(() => ({ kind: 'error', status: 503 }));
    const short = context('job_2', openAiAgent({}, 300));
    const second = await runtime.start({ runKey: 'job_2', input: requestInput('job_2', 'Go'), context: short });
    const state = await settle(runtime, second.runId, short);
    expect(state.state).toBe('failed');
    expect(state.state === 'failed' && state.error).toMatch(/HTTP 503.*gave up after \d+ attempt/);
    expect(state.state === 'failed' && state.code).toBe('PROVIDER_UNAVAILABLE');
    expect(provider.requests.length).toBeGreaterThan(3);
  });

  it('fails the job on a cut stream, without retrying it', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'raw-sse', data: [contentChunk('Half an ans')] });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state.state === 'failed' && state.error).toMatch(/cut stream/);
    expect(provider.requests).toHaveLength(1);
  });

  it('fails the job on a malformed stream chunk', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'raw-sse', data: ['{"id": "x", "choices": [ {broken'] });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state.state === 'failed' && state.error).toMatch(/malformed stream chunk/);
  });

  it('reports an invalid key as lost access once, then continues the run after reconnection', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await expect(settle(runtime, runId, ctx)).rejects.toMatchObject({ name: 'RuntimeError', kind: 'access' });
    provider.enqueue({ kind: 'answer', content: 'with a good key' });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'with a good key' });
  });

  it('reports an unset API key variable as lost access without calling the provider', async () => {
    const { provider, runtime, env } = fixture();
    env.TEST_OPENAI_KEY = undefined;
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await expect(settle(runtime, runId, ctx)).rejects.toMatchObject({ kind: 'access' });
    expect(provider.requests).toHaveLength(0);
  });

  it('aborts the HTTP request when the run is cancelled', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'hang', data: [contentChunk('thinking')] });
    // Over real HTTP: the provider sees the connection drop.
    const served = await serveChatProvider(provider);
    try {
      const ctx = context('job_1', openAiAgent({ baseUrl: served.baseUrl }));
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      await until(() => provider.openStreams === 1, 'the stream to open');
      await runtime.cancel({ runId, context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'cancelled' });
      await until(() => provider.closedStreams === 1, 'the request to be aborted');
    } finally {
      await served.close();
    }
  });
});

describe('OpenAiRuntime: idempotency after a crash', () => {
  it('continues from the persisted answer instead of asking the provider again', async () => {
    const { provider, runtime, restart } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_1', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'final' },
    );
    const stuck = new StuckTools();
    const ctx = context('job_1', openAiAgent(), stuck);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1 && stuck.started, 'the tool call to start');
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
  it('lets only one of two executions of a run (two servers) write each step, and counts each call made', async () => {
    const { provider, runtime, restart, database } = fixture();
    provider.respondWith(() => ({
      kind: 'answer',
      content: 'same answer',
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }));
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    // Written, as the scheduler has it written before it records the run (only then can another server see it).
    await runtime.persist({ runId });
    const other = restart();
    try {
      const [a, b] = await Promise.all([settle(runtime, runId, ctx), settle(other, runId, ctx)]);
      expect(a).toEqual({ state: 'completed', answer: 'same answer' });
      expect(b).toEqual(a);
      const assistant = await database.db
        .selectFrom('openai_messages')
        .select('step')
        .where('role', '=', 'assistant')
        .execute();
      expect(assistant).toEqual([{ step: 1 }]);
      // Each call the provider answered was billed, one whose step was lost too (recorded alone;
      // whether the second execution calls at all is a race here: lost-answer-usage.test.ts forces it).
      const usage = () => database.db.selectFrom('model_usage').select('id').execute();
      await until(async () => (await usage()).length === provider.requests.length, 'every call counted');
    } finally {
      await other.dispose();
    }
  });
});
