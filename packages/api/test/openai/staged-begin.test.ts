import { asRunId } from '@agent-teams/core';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RunTable } from '../../src/runtimes/durable/run-table.js';
import { OpenAiRunStore } from '../../src/runtimes/openai/openai-run-store.js';
import { CommitCounter } from '../support/commit-counter.js';
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
      // Started again with its key (the scheduler, after the grace): the run ended here, no read.
      const reads = counter.runReads;
      expect(await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx })).toEqual({
        runId,
      });
      expect(counter.runReads).toBe(reads);
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
    // Started again with its key (the scheduler after the acknowledgement grace): the same run,
    // even if the agent's settings stopped being usable meanwhile (the run has them already).
    const changed = context('job_1', openAiAgent({ model: 42 }));
    expect(await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: changed })).toEqual({
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

  it('keeps a run held when its first write fails, and writes and replays it once the scheduler persists it', async () => {
    const { provider } = fixture();
    provider.enqueue({ kind: 'answer', content: 'lost' }, { kind: 'answer', content: 'kept' });
    // The step's write fails (the turn then ends failed), and so does the run's write before that outcome.
    const failing = new FailWrites('openai_messages', 2);
    const runtime = runtimeOver(fixture(), { plugin: failing });
    const ctx = context('job_1', openAiAgent());
    try {
      const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
      await until(() => failing.left === 0 && provider.requests.length === 1, 'the failed writes');
      await until(
        () => fixture().logger.entries.some((entry) => entry.message.includes('could not record')),
        'the log',
      );
      expect(await stored(runId)).toEqual({ state: null, messages: [], conversation: [] });
      expect(await runtime.poll({ runId, context: ctx })).toEqual({ state: 'running' });
      // The scheduler, about to record the run: written now, then replayed by the next polls.
      await runtime.persist({ runId });
      expect(await settle(runtime, runId, ctx)).toEqual({ state: 'completed', answer: 'kept' });
      expect(await stored(runId)).toEqual(answeredOnce('kept'));
    } finally {
      await runtime.dispose();
    }
  });

  it("lists a held run's first messages once in the history, also once committed and not yet forgotten", async () => {
    const { database } = fixture();
    const runs = new RunTable<never>(database.db);
    const store = new OpenAiRunStore(database.db, database.dialect, runs as never);
    const begin = {
      runKey: 'job_1',
      runId: 'orun_job_1',
      conversationId: context('job_1', openAiAgent()).conversationId,
      jobId: context('job_1', openAiAgent()).jobId,
      doc: {
        memberName: 'Analyst',
        teamId: 'team_1',
        jobId: 'job_1',
        startedAtMs: 0,
        timeoutMs: 0,
        outcome: null,
        blocked: null,
      },
      messages: [{ role: 'user' as const, content: 'Go', toolCalls: null, toolCallId: null, toolName: null }],
      now: new Date().toISOString(),
    };
    store.stage(begin);
    expect((await store.history(begin.conversationId, 10)).map((m) => m.content)).toEqual(['Go']);
    // Committed by another store over the same database while this one still holds it.
    const other = new OpenAiRunStore(database.db, database.dialect, runs as never);
    other.stage(begin);
    await other.persist(begin.runId, begin.now);
    expect(store.isStaged(begin.runId)).toBe(true);
    expect((await store.history(begin.conversationId, 10)).map((m) => m.content)).toEqual(['Go']);
  });
});

/** Fails the first `left` statements that insert into `table`. */
class FailWrites implements KyselyPlugin {
  constructor(
    readonly table: string,
    public left: number,
  ) {}
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    const { node } = args;
    if (this.left > 0 && node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === this.table) {
      this.left -= 1;
      throw new Error(`${this.table} is out of space (test)`);
    }
    return node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}
