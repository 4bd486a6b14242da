import { asJobId, asRunId, type MemberToolPort, type TurnInput } from '@agent-teams/core';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  appendedRows,
  context,
  input,
  makeRuntime,
  opened,
  runRows,
  useMemoryDatabase,
} from '../../../test/support/scripted-runtime-fixture.js';

/**
 * Turns of the scripted runtime that end at once: plain answers and receipts, directive lines,
 * tool calls and handoffs, failures; each run's end written with its conversation, once per key.
 */
useMemoryDatabase();

describe('ScriptedRuntime', () => {
  it('answers a plain request with the member name and first line, inserted finished in one row', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', 'Find sources\nmore'),
      context: context('job_1'),
    });
    expect(await runRows()).toEqual([{ run_key: 'job_1', state: 'completed' }]);
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({
      state: 'completed',
      answer: 'Research: Find sources',
    });
    expect(await appendedRows()).toHaveLength(1);
    expect((await appendedRows())[0]?.messages.map((m) => [m.role, m.text])).toEqual([
      ['USER', 'Find sources\nmore'],
      ['ASSISTANT', 'Research: Find sources'],
    ]);
  });

  it('never ends a run without its conversation: a failed append leaves no ended run behind', async () => {
    // The conversation write fails (as a kill between two writes would leave it unwritten).
    await sql`CREATE TRIGGER refuse_conversation BEFORE INSERT ON conversation_messages BEGIN SELECT RAISE(ABORT, 'refused'); END`.execute(
      opened.db,
    );
    const runtime = makeRuntime();
    await expect(
      runtime.start({ runKey: 'job_1', input: input('job_1', 'Find sources'), context: context('job_1') }),
    ).rejects.toThrow();
    expect(await runRows()).toEqual([]);
    await sql`DROP TRIGGER refuse_conversation`.execute(opened.db);
    // The replay (same key) writes both.
    await makeRuntime().start({ runKey: 'job_1', input: input('job_1', 'Find sources'), context: context('job_1') });
    expect(await runRows()).toEqual([{ run_key: 'job_1', state: 'completed' }]);
    expect((await appendedRows())[0]?.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT']);
  });

  it('returns the same run for the same key, also from a new runtime, without appending twice', async () => {
    const first = await makeRuntime().start({
      runKey: 'job_1',
      input: input('job_1', 'hi'),
      context: context('job_1'),
    });
    const again = await makeRuntime().start({
      runKey: 'job_1',
      input: input('job_1', 'hi'),
      context: context('job_1'),
    });
    expect(again.runId).toBe(first.runId);
    expect(await runRows()).toHaveLength(1);
    expect(await appendedRows()).toHaveLength(1);
  });

  it('answers a receipt turn without directives with the sender and result', async () => {
    const runtime = makeRuntime();
    const receiptInput: TurnInput = {
      ...input('job_2', '{"result":"done"}', 'receipt'),
      receipt: { requestId: asJobId('job_1'), fromMemberName: 'Review', status: 'COMPLETED', result: 'all good' },
    };
    const { runId } = await runtime.start({ runKey: 'job_2', input: receiptInput, context: context('job_2') });
    expect(await runtime.poll({ runId, context: context('job_2') })).toEqual({
      state: 'completed',
      answer: 'receipt from Review: all good',
    });
  });

  it('joins directive lines in order', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', 'intro\n!reply one\n!bytes 3\n!reply two'),
      context: context('job_1'),
    });
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({
      state: 'completed',
      answer: 'one\nxxx\ntwo',
    });
  });

  it('adds the refusal code of a tool as a line and records the tool messages', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!tool read_team_context {}\n!reply after'),
      context: context('job_1'),
    });
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({
      state: 'completed',
      answer: '{"error":{"code":"NOT_AVAILABLE_YET"}}\nafter',
    });
    expect(
      (await appendedRows())[0]?.messages.filter((m) => m.toolName === 'read_team_context').map((m) => m.role),
    ).toEqual(['ASSISTANT', 'TOOL']);
  });

  it('fails a refused handoff with the code, and hands off through send_member when allowed', async () => {
    const runtime = makeRuntime();
    const refused = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!handoff reviewer check it'),
      context: context('job_1'),
    });
    const state = await runtime.poll({ runId: refused.runId, context: context('job_1') });
    expect(state.state).toBe('failed');
    expect(state.state === 'failed' && state.error).toContain('NOT_AVAILABLE_YET');

    const calls: unknown[] = [];
    const tools: MemberToolPort = {
      invoke: async (name, args) => {
        calls.push([name, args]);
        return { id: 'job_9', status: 'QUEUED' };
      },
    };
    const ok = await runtime.start({
      runKey: 'job_2',
      input: input('job_2', '!handoff reviewer check it'),
      context: context('job_2', tools),
    });
    expect(await runtime.poll({ runId: ok.runId, context: context('job_2') })).toEqual({
      state: 'completed',
      answer: 'handed off to reviewer',
    });
    expect(calls).toEqual([['send_member', { member: 'reviewer', text: 'check it', request_id: 'job_2:0' }]]);
  });

  it('fails with the message of !fail', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!reply lost\n!fail broken tool'),
      context: context('job_1'),
    });
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({ state: 'failed', error: 'broken tool' });
  });

  it('answers failed for a run it does not know', async () => {
    const state = await makeRuntime().poll({ runId: asRunId('run_nope'), context: context('job_1') });
    expect(state.state).toBe('failed');
  });

  it('fails a turn with a malformed directive, naming the line', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!sleep forever'),
      context: context('job_1'),
    });
    const state = await runtime.poll({ runId, context: context('job_1') });
    expect(state.state === 'failed' && state.error).toContain('!sleep forever');
  });
});
