import type { RuntimeNotice } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import {
  appendedRows,
  context,
  input,
  makeRuntime,
  runRows,
  settle,
  useMemoryDatabase,
} from '../../../test/support/scripted-runtime-fixture.js';

/**
 * Scripted runs that outlast their start: questions and interrupts answered by resuming, streamed
 * deltas, a cancelled sleep, and a run left running by a stopped runtime replayed by the next.
 */
useMemoryDatabase();

describe('ScriptedRuntime', () => {
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
});
