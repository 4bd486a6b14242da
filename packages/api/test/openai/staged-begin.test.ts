import { asRunId } from '@agent-teams/core';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  context,
  openAiAgent,
  requestInput,
  runtimeOver,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';

const fixture = useRuntimeFixture();

/** Counts the COMMIT statements run through the Kysely handle it is plugged into. */
class CommitCounter implements KyselyPlugin {
  commits = 0;
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    const { node } = args;
    if (node.kind === 'RawNode' && node.sqlFragments.join('').trim().toUpperCase() === 'COMMIT') this.commits += 1;
    return node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}

/** What the database holds of a run: its row's state, its messages' steps and roles, the conversation. */
async function stored(runId: string) {
  const { database } = fixture();
  const run = await database.db
    .selectFrom('runtime_runs')
    .select('state')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  const messages = await database.db
    .selectFrom('openai_messages')
    .select(['step', 'role'])
    .where('run_id', '=', runId)
    .orderBy('step')
    .execute();
  const conversation = await database.db
    .selectFrom('conversation_messages')
    .select(['role', 'text'])
    .orderBy('seq')
    .execute();
  return { state: run?.state ?? null, messages, conversation };
}

/** What a completed turn asked `Go` leaves: the run, its input once, and `answer`. */
function answeredOnce(answer: string) {
  return {
    state: 'completed',
    messages: [
      { step: 0, role: 'user' },
      { step: 1, role: 'assistant' },
    ],
    conversation: [
      { role: 'USER', text: 'Go' },
      { role: 'ASSISTANT', text: answer },
    ],
  };
}

describe('OpenAiRuntime: a new run is written with its first step', () => {
  it('commits the run, its input and a final answer together, once', async () => {
    const { provider } = fixture();
    provider.enqueue({ kind: 'answer', content: 'done' });
    const counter = new CommitCounter();
    const runtime = runtimeOver(fixture(), { plugin: counter });
    const ctx = context('job_1', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'done' });
      // Written apart (as before decision 0220), the run and its input were a commit of their own.
      expect(counter.commits).toBe(1);
      expect(await stored(runId)).toEqual(answeredOnce('done'));
    } finally {
      await runtime.dispose();
    }
  });

  it('holds the run until then, answers it as running, and writes it at once on persist', async () => {
    const { provider, runtime } = fixture();
    provider.enqueue({ kind: 'hang' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1, 'the model call');
    // The model saw the turn's input, though nothing is written yet.
    expect(JSON.stringify(provider.requests[0]?.body.messages)).toContain('Go');
    expect(await stored(runId)).toEqual({ state: null, messages: [], conversation: [] });
    expect(await runtime.poll({ runId, context: ctx })).toEqual({ state: 'running' });
    // Started again with its key (the scheduler after the acknowledgement grace): the same run.
    expect(await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx })).toEqual({
      runId,
    });
    expect(provider.requests).toHaveLength(1);

    await runtime.persist({ runId });
    await runtime.persist({ runId });
    const written = {
      messages: [{ step: 0, role: 'user' }],
      conversation: [{ role: 'USER', text: 'Go' }],
    };
    expect(await stored(runId)).toEqual({ state: 'running', ...written });
    // A restart now finds the run it would be told about.
    const other = fixture().restart();
    try {
      expect(await other.poll({ runId, context: ctx })).toEqual({ state: 'running' });
    } finally {
      await other.dispose();
    }

    await runtime.cancel({ runId, context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'cancelled' });
    expect(await stored(runId)).toEqual({ state: 'cancelled', ...written });
  });

  it('writes a run cancelled before its first step, so its outcome survives a restart', async () => {
    const { provider, runtime, restart } = fixture();
    provider.enqueue({ kind: 'hang' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1, 'the model call');
    await runtime.cancel({ runId, context: ctx });
    expect(await settle(runtime, runId, ctx)).toEqual({ state: 'cancelled' });
    expect((await stored(runId)).state).toBe('cancelled');
    const other = restart();
    expect(await other.poll({ runId, context: ctx })).toEqual({ state: 'cancelled' });
    await other.dispose();
  });

  it('leaves nothing behind a crash before the first step; the turn starts again from its input', async () => {
    const { provider, runtime, restart } = fixture();
    provider.enqueue({ kind: 'hang' }, { kind: 'answer', content: 'second try' });
    const ctx = context('job_1', openAiAgent());
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1, 'the model call');
    await runtime.dispose(); // the process dies while the model answers
    expect(await stored(runId)).toEqual({ state: null, messages: [], conversation: [] });

    const again = restart();
    try {
      expect(await again.poll({ runId: asRunId(runId), context: ctx })).toEqual({
        state: 'failed',
        error: `unknown run ${runId}`,
      });
      // The job was never acknowledged, so the scheduler starts it again with the same key.
      expect(await again.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx })).toEqual({
        runId,
      });
      expect(await settle(again, runId, ctx)).toEqual({ state: 'completed', answer: 'second try' });
      expect(await stored(runId)).toEqual(answeredOnce('second try'));
    } finally {
      await again.dispose();
    }
  });
});
