import {
  type AgentDefinition,
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asRunId,
  asTeamId,
  DomainError,
  type MemberToolPort,
  type NewConversationMessage,
  type RunContext,
  type RunState,
  type RuntimeNotice,
  type TurnInput,
} from '@agent-teams/core';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../storage/open-database.js';
import { ScriptedRuntime } from './scripted-runtime.js';

const agent: AgentDefinition = {
  id: asAgentId('researcher'),
  name: 'researcher',
  title: 'Research',
  description: 'd',
  runtime: 'scripted',
  timeoutMs: 180_000,
  settings: {},
};
const refusingTools: MemberToolPort = {
  invoke: async (name) => {
    throw new DomainError('NOT_AVAILABLE_YET', `no ${name}`);
  },
};
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const clock = { nowMs: () => Date.now() };

let opened: OpenedDatabase;
/**
 * The conversation the runtime wrote, one entry per append (rows of one transaction share their
 * conversation, job and timestamp), oldest first.
 */
async function appendedRows(): Promise<{ conversationId: string; messages: NewConversationMessage[] }[]> {
  const rows = await opened.db.selectFrom('conversation_messages').selectAll().orderBy('seq').execute();
  const groups: { key: string; conversationId: string; messages: NewConversationMessage[] }[] = [];
  for (const row of rows) {
    const key = `${row.conversation_id} ${row.job_id} ${row.created_at}`;
    const message = {
      role: row.role,
      text: row.text,
      toolName: row.tool_name,
      jobId: row.job_id,
    } as NewConversationMessage;
    const last = groups.at(-1);
    if (last?.key === key) last.messages.push(message);
    else groups.push({ key, conversationId: row.conversation_id, messages: [message] });
  }
  return groups.map(({ conversationId, messages }) => ({ conversationId, messages }));
}

function makeRuntime(): ScriptedRuntime {
  return new ScriptedRuntime({ db: opened.db, dialect: opened.dialect, clock, logger: silent, streamIntervalMs: 1 });
}
function context(jobId: string, tools: MemberToolPort = refusingTools): RunContext {
  return {
    teamId: asTeamId('team_1'),
    jobId: asJobId(jobId),
    memberId: asMemberId('member_1'),
    conversationId: asConversationId('conversation_1'),
    agent,
    tools,
  };
}
function input(jobId: string, text: string, kind: TurnInput['kind'] = 'request'): TurnInput {
  return {
    kind,
    jobId: asJobId(jobId),
    teamId: asTeamId('team_1'),
    text,
    memberName: 'Research',
    requesterName: null,
    receipt: null,
    context: null,
  };
}
async function settle(runtime: ScriptedRuntime, runId: string, jobId: string): Promise<RunState> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const state = await runtime.poll({ runId: asRunId(runId), context: context(jobId) });
    if (state.state !== 'running' || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
async function runRows(): Promise<{ run_key: string; state: string }[]> {
  return opened.db.selectFrom('runtime_runs').select(['run_key', 'state']).execute();
}

beforeEach(async () => {
  opened = await openDatabase(':memory:');
  await migrateToLatest(opened.db, opened.dialect);
});
afterEach(async () => {
  await opened.close();
});

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

  it('asks a clarification and answers the continuation with the answer', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!ask Which region?'),
      context: context('job_1'),
    });
    const waiting = await runtime.poll({ runId, context: context('job_1') });
    expect(waiting).toEqual({
      state: 'waiting',
      input: { kind: 'CLARIFICATION', requestId: 'input_job_1', question: 'Which region?' },
    });
    const response = {
      runKey: 'job_1:r1',
      inputRequestId: 'input_job_1',
      kind: 'CLARIFICATION' as const,
      value: 'EU',
      clientRequestId: 'c',
    };
    const resumed = await runtime.resume({ runKey: 'job_1:r1', runId, response, context: context('job_1') });
    expect(resumed.runId).not.toBe(runId);
    expect(await runtime.poll({ runId: resumed.runId, context: context('job_1') })).toEqual({
      state: 'completed',
      answer: 'answered: EU',
    });
  });

  it('runs directives in an answer, so an answer can ask again', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!ask First?'),
      context: context('job_1'),
    });
    const response = {
      runKey: 'job_1:r1',
      inputRequestId: 'input_job_1',
      kind: 'CLARIFICATION' as const,
      value: '!ask Second?',
      clientRequestId: 'c',
    };
    const resumed = await runtime.resume({ runKey: 'job_1:r1', runId, response, context: context('job_1') });
    expect(await runtime.poll({ runId: resumed.runId, context: context('job_1') })).toMatchObject({
      state: 'waiting',
      input: { kind: 'CLARIFICATION', requestId: 'input_job_1:r1', question: 'Second?' },
    });
  });

  it('stops on an interrupt and resumes with the compact JSON response', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!interrupt {"approve": "deploy"}'),
      context: context('job_1'),
    });
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({
      state: 'waiting',
      input: { kind: 'INTERRUPT', requestId: 'input_job_1', payload: { approve: 'deploy' } },
    });
    const response = {
      runKey: 'job_1:r1',
      inputRequestId: 'input_job_1',
      kind: 'INTERRUPT' as const,
      value: { ok: true },
      clientRequestId: 'c',
    };
    const resumed = await runtime.resume({ runKey: 'job_1:r1', runId, response, context: context('job_1') });
    expect(await runtime.poll({ runId: resumed.runId, context: context('job_1') })).toEqual({
      state: 'completed',
      answer: 'resumed: {"ok":true}',
    });
  });

  it('refuses to resume with an answer for another question', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!ask Q?'),
      context: context('job_1'),
    });
    const response = {
      runKey: 'job_1:r1',
      inputRequestId: 'input_other',
      kind: 'CLARIFICATION' as const,
      value: 'x',
      clientRequestId: 'c',
    };
    await expect(
      runtime.resume({ runKey: 'job_1:r1', runId, response, context: context('job_1') }),
    ).rejects.toMatchObject({ kind: 'rejected' });
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

  it('streams n text deltas through subscribe, then settles with their text', async () => {
    const runtime = makeRuntime();
    const notices: RuntimeNotice[] = [];
    runtime.subscribe((notice) => notices.push(notice));
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!stream 3'),
      context: context('job_1'),
    });
    expect(await settle(runtime, runId, 'job_1')).toEqual({ state: 'completed', answer: 'delta 1 delta 2 delta 3' });
    const deltas = notices.flatMap((n) =>
      n.type === 'progress' && n.progress.type === 'text' ? [n.progress.delta] : [],
    );
    expect(deltas).toEqual(['delta 1', ' delta 2', ' delta 3']);
    expect(notices.at(-1)).toEqual({ type: 'settled', runId });
  });

  it('cancels a sleeping run promptly', async () => {
    const runtime = makeRuntime();
    const { runId } = await runtime.start({
      runKey: 'job_1',
      input: input('job_1', '!sleep 600000'),
      context: context('job_1'),
    });
    expect(await runtime.poll({ runId, context: context('job_1') })).toEqual({ state: 'running' });
    await runtime.cancel({ runId, context: context('job_1') });
    expect(await settle(runtime, runId, 'job_1')).toEqual({ state: 'cancelled' });
    expect(await runRows()).toEqual([{ run_key: 'job_1', state: 'cancelled' }]);
  });

  it('replays a run left running by a stopped runtime, once, under the same row', async () => {
    const before = makeRuntime();
    const { runId } = await before.start({
      runKey: 'job_1',
      input: input('job_1', '!sleep 200\n!reply done'),
      context: context('job_1'),
    });
    // Stopped as a crash would stop it: its execution ends and records nothing.
    await before.dispose();
    expect(await runRows()).toEqual([{ run_key: 'job_1', state: 'running' }]);
    const after = makeRuntime();
    expect(await settle(after, runId, 'job_1')).toEqual({ state: 'completed', answer: 'slept 200 ms\ndone' });
    expect(await runRows()).toHaveLength(1);
    expect(await appendedRows()).toHaveLength(1);
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
