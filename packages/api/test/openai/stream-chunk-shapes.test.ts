import { describe, expect, it } from 'vitest';
import { context, openAiAgent, requestInput, settle, useRuntimeFixture } from './runtime-fixture.js';

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
