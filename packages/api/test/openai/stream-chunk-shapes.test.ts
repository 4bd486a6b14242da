import { describe, expect, it } from 'vitest';
import { context, openAiAgent, RecordingTools, requestInput, settle, useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

describe('OpenAiRuntime: stream chunks that are not objects', () => {
  it.each(['null', '42', '"text"', '[{"choices":[]}]', 'true'])(
    'fails the job saying so on a stream chunk that is JSON but not an object: %s',
    async (data) => {
      const { provider, runtime } = fixture();
      provider.enqueue({ kind: 'raw-sse', data: [data] });
      const ctx = context('job_1', openAiAgent());
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      const state = await settle(runtime, runId, ctx);
      expect(state.state === 'failed' && state.error).toMatch(/sent a stream chunk that is not a JSON object/);
    },
  );
});

/**
 * Runs the turn whose first answer the provider was given, and checks that its odd call was
 * stored as text: read back from its row for the next step (before, it read as lost: STATE_LOST),
 * run with its arguments, and sent again with a string id and arguments.
 */
async function expectReadBack({ provider, runtime }: ReturnType<typeof fixture>, stream: boolean): Promise<void> {
  const tools = new RecordingTools({ read_team_context: { goal: 'Ship it' } });
  const ctx = context('job_1', openAiAgent({ stream }), tools);
  const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
  expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'final' });
  expect(tools.calls).toEqual([{ name: 'read_team_context', args: { scope: '数据 😀' } }]);
  const sent = provider.requests[1]?.body.messages ?? [];
  expect(sent.find((message) => message.role === 'assistant')).toMatchObject({
    tool_calls: [{ id: '7', function: { name: 'read_team_context', arguments: '{"scope":"数据 😀"}' } }],
  });
}

describe('OpenAiRuntime: tool calls in shapes OpenAI does not send', () => {
  it('stores a numeric id and object arguments as text, so the turn reads them back and goes on', async () => {
    const { provider } = fixture();
    const chunk = (delta: unknown, finish: string | null) =>
      JSON.stringify({
        id: 'x',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    provider.enqueue(
      {
        kind: 'raw-sse',
        data: [
          chunk(
            {
              tool_calls: [
                { index: 0, id: 7, function: { name: 'read_team_context', arguments: { scope: '数据 😀' } } },
              ],
            },
            null,
          ),
          chunk({}, 'tool_calls'),
          '[DONE]',
        ],
      },
      { kind: 'answer', content: 'final' },
    );
    await expectReadBack(fixture(), true);
  });

  it('does the same for a whole (not streamed) answer', async () => {
    const { provider } = fixture();
    // As a provider might send them: the wire types say strings, this one does not.
    const odd = { id: 7, name: 'read_team_context', arguments: { scope: '数据 😀' } } as unknown as {
      id: string;
      name: string;
      arguments: string;
    };
    provider.enqueue({ kind: 'answer', toolCalls: [odd] }, { kind: 'answer', content: 'final' });
    await expectReadBack(fixture(), false);
  });
});
