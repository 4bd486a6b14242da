import { describe, expect, it } from 'vitest';
import { cutNotice } from '../../src/runtimes/openai/finish-reasons.js';
import { context, openAiAgent, RecordingTools, requestInput, settle, useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

/** Both ways the provider answers: a cut answer must read the same in each. */
const MODES = [
  ['streamed', true],
  ['non-streamed', false],
] as const;

describe.each(MODES)('OpenAiRuntime: answers the provider stopped early (%s)', (_mode, stream) => {
  it('completes a text answer cut at max_tokens with the cut notice, in the result and the conversation', async () => {
    const { provider, runtime, database } = fixture();
    provider.enqueue({
      kind: 'answer',
      content: 'The plan has three steps: first',
      finishReason: 'length',
      usage: { prompt_tokens: 100, completion_tokens: 64 },
    });
    const ctx = context('job_1', openAiAgent({ stream, maxOutputTokens: 64 }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Plan?'), context: ctx });
    const answer = `The plan has three steps: first${cutNotice(64)}`;
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer });
    expect(answer).toContain('maxOutputTokens 64');
    // The member's conversation, which a job's own truncation notice points to, says so too.
    const visible = await database.db
      .selectFrom('conversation_messages')
      .select(['role', 'text'])
      .orderBy('seq')
      .execute();
    expect(visible.at(-1)).toEqual({ role: 'ASSISTANT', text: answer });
    expect(await database.db.selectFrom('model_usage').select('output_tokens').execute()).toEqual([
      { output_tokens: 64 },
    ]);
    expect(provider.requests).toHaveLength(1);
  });

  it('runs none of the tool calls of an answer cut at max_tokens and fails the turn saying why', async () => {
    const { provider, runtime, database } = fixture();
    provider.enqueue({
      kind: 'answer',
      content: 'Checking.',
      toolCalls: [
        { id: 'call_a', name: 'read_team_context', arguments: '{}' },
        { id: 'call_b', name: 'read_team_result', arguments: '{"job_id":"jo' },
      ],
      finishReason: 'length',
      usage: { prompt_tokens: 100, completion_tokens: 32 },
    });
    const tools = new RecordingTools({ read_team_context: { team_id: 'team_1' } });
    const ctx = context('job_1', openAiAgent({ stream, maxOutputTokens: 32 }), tools);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Status?'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state).toMatchObject({ state: 'failed' });
    expect(state.state === 'failed' ? state.error : '').toMatch(/cut off at its output limit \(maxOutputTokens 32\)/);
    expect(tools.calls).toEqual([]);
    expect(provider.requests).toHaveLength(1);
    // Stored without its calls: a later turn sends no call that no result answers.
    const stored = await database.db
      .selectFrom('openai_messages')
      .select(['role', 'content', 'tool_calls_json'])
      .where('role', '=', 'assistant')
      .execute();
    expect(stored).toEqual([{ role: 'assistant', content: 'Checking.', tool_calls_json: null }]);
    expect(await database.db.selectFrom('model_usage').select('output_tokens').execute()).toEqual([
      { output_tokens: 32 },
    ]);
  });

  it('fails a turn whose answer was cut at max_tokens before any text', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'answer', content: '', finishReason: 'length' });
    const ctx = context('job_1', openAiAgent({ stream, maxOutputTokens: 16 }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Plan?'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state).toMatchObject({ state: 'failed' });
    expect(state.state === 'failed' ? state.error : '').toMatch(/before it wrote any answer/);
  });

  it('fails a turn whose answer the content filter stopped, running none of its calls', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({
      kind: 'answer',
      content: 'Here is how to',
      toolCalls: [{ id: 'call_a', name: 'read_team_context', arguments: '{}' }],
      finishReason: 'content_filter',
    });
    const tools = new RecordingTools({ read_team_context: { team_id: 'team_1' } });
    const ctx = context('job_1', openAiAgent({ stream }), tools);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'How?'), context: ctx });
    const state = await settle(runtime, runId, ctx);
    expect(state).toMatchObject({ state: 'failed' });
    expect(state.state === 'failed' ? state.error : '').toMatch(/content filter stopped the answer/);
    expect(tools.calls).toEqual([]);
    expect(provider.requests).toHaveLength(1);
  });

  it('fails a text answer the content filter stopped instead of completing with it', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'answer', content: 'Here is how to', finishReason: 'content_filter' });
    const ctx = context('job_1', openAiAgent({ stream }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'How?'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toMatchObject({ state: 'failed' });
  });

  it('completes a whole answer (finish_reason "stop") as it came', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'answer', content: 'All done.', finishReason: 'stop' });
    const ctx = context('job_1', openAiAgent({ stream }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Plan?'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'All done.' });
  });
});
