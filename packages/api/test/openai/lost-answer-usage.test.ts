// A model call whose answer another execution of the run wrote first (a server paused past its
// lease wakes to find the step written by the server that took the job over): the step and the
// outcome are the other execution's, but the provider billed both calls, so both are counted, on
// SQLite and on PostgreSQL. The ride's form of the same loss is in final-step-ride.test.ts.
import type { JobId, TeamId } from '@agent-teams/core';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BASE_URL,
  context,
  openAiAgent,
  type RuntimeFixture,
  requestInput,
  runtimeOver,
  server,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';
import { RUNTIME_TARGETS, runtimeTargets } from './runtime-targets.js';

/** What each call's answer reports: the paused execution's first call, the other's second. */
const FIRST = { prompt_tokens: 7, completion_tokens: 2 };
const SECOND = { prompt_tokens: 3, completion_tokens: 1 };

async function usageRows(current: RuntimeFixture) {
  const rows = await current.database.db
    .selectFrom('model_usage')
    .select(['id', 'job_id', 'input_tokens', 'output_tokens'])
    .orderBy('input_tokens')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    job: row.job_id,
    input: Number(row.input_tokens),
    output: Number(row.output_tokens),
  }));
}

/**
 * Holds the answer to the first call until `release`, and answers the others at once: the first
 * execution's call is then in flight while the second execution (a takeover) calls and writes.
 */
function holdFirstAnswer(current: RuntimeFixture): () => void {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.use(
    http.post(`${BASE_URL}/chat/completions`, async ({ request }) => {
      const first = current.provider.requests.length === 0;
      const response = await current.provider.handle(request);
      if (first) await held;
      return response;
    }),
  );
  return release;
}

const targets = runtimeTargets();
const fixture = useRuntimeFixture(targets.open);

describe.each(RUNTIME_TARGETS)('OpenAiRuntime: an answer another execution wrote first (%s)', (target) => {
  targets.use(target, 'agent_teams_lost_usage');

  it('counts the losing call too, its row written before its own reservation is released', async () => {
    const current = fixture();
    const { provider, database, restart } = current;
    provider.respondWith((_body, index) => ({
      kind: 'answer',
      content: index === 0 ? 'paused answer' : 'taken-over answer',
      usage: index === 0 ? FIRST : SECOND,
    }));
    const release = holdFirstAnswer(current);
    // This execution's own reservation (the store's is one per job, which the other server's would replace).
    const rowsAtRelease: number[] = [];
    const spend = {
      reserve: async (_call: { teamId: TeamId; jobId: JobId; tokens: number; cost: number }) => ({
        ok: true as const,
        reserved: true,
        release: async () => {
          rowsAtRelease.push((await usageRows(current)).length);
        },
      }),
    };
    const paused = runtimeOver(current, { spend });
    const other = restart();
    try {
      const ctx = context('job_1', openAiAgent());
      const { runId } = await paused.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      await until(() => provider.requests.length === 1, 'the first call to reach the provider');
      // Written, as the scheduler has it written before it records the run (only then can another server see it).
      await paused.persist({ runId });
      // The other server resumes the stored run, calls again and writes the step first.
      expect(await settle(other, runId, ctx)).toEqual({ state: 'completed', answer: 'taken-over answer' });
      expect(provider.requests).toHaveLength(2);
      expect(await usageRows(current)).toEqual([
        { id: expect.stringMatching(/^usage_orun_job_1_1_/), job: 'job_1', input: 3, output: 1 },
      ]);

      release();
      // The paused execution's answer arrives: its step is lost, its outcome is the stored one.
      expect(await settle(paused, runId, ctx)).toEqual({ state: 'completed', answer: 'taken-over answer' });
      await until(() => rowsAtRelease.length === 1, "the paused call's reservation to be released");
      expect(rowsAtRelease).toEqual([2]);
      const rows = await usageRows(current);
      expect(rows.map(({ job, input, output }) => ({ job, input, output }))).toEqual([
        { job: 'job_1', input: 3, output: 1 },
        { job: 'job_1', input: 7, output: 2 },
      ]);
      const answers = await database.db
        .selectFrom('openai_messages')
        .select(['step', 'content'])
        .where('role', '=', 'assistant')
        .execute();
      expect(answers).toEqual([{ step: 1, content: 'taken-over answer' }]);
      expect(current.logger.at('error')).toEqual([]);
    } finally {
      release();
      await paused.dispose();
      await other.dispose();
    }
  });
});
