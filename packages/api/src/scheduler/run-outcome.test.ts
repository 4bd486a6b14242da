import {
  asConversationId,
  asJobId,
  asOwnerId,
  asRunId,
  asTeamId,
  type Job,
  JobPhase,
  type TurnInput,
} from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { CANCELLED_OUTSIDE, outcomeCommand, transitionAll } from './run-outcome.js';

const input: TurnInput = {
  kind: 'request',
  jobId: asJobId('job_1'),
  teamId: asTeamId('team_1'),
  text: 'hi',
  memberName: 'm0',
  requesterName: null,
  receipt: null,
  context: null,
};
const admitting: Job = {
  id: asJobId('job_1'),
  teamId: asTeamId('team_1'),
  owner: asOwnerId('alice'),
  kind: 'REQUEST',
  phase: JobPhase.ADMITTING,
  seq: 1,
  memberId: null,
  conversationId: asConversationId('conversation_1'),
  requester: { memberId: null, conversationId: null },
  parentId: null,
  rootId: asJobId('job_1'),
  clientKey: 'c1',
  text: 'hi',
  input,
  runKey: 'job_1',
  runId: null,
  pendingInput: null,
  pendingResponse: null,
  result: null,
  error: null,
  errorCode: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const ctx = { now: '2026-01-01T00:00:01.000Z', ids: new SequentialIds() };

describe('outcomeCommand', () => {
  it('maps each run state of a running job to its command', () => {
    expect(outcomeCommand(JobPhase.RUNNING, { state: 'running' })).toBeNull();
    expect(outcomeCommand(JobPhase.RUNNING, { state: 'completed', answer: 'a' })).toEqual({
      type: 'COMPLETE',
      answer: 'a',
    });
    const input = { kind: 'CLARIFICATION' as const, requestId: 'r', question: 'q' };
    expect(outcomeCommand(JobPhase.RUNNING, { state: 'waiting', input })).toEqual({ type: 'ASK_INPUT', input });
    expect(outcomeCommand(JobPhase.RUNNING, { state: 'failed', error: 'e' })).toEqual({
      type: 'FAIL',
      error: 'e',
      code: 'RUNTIME_ERROR',
    });
    const unavailable = { state: 'failed', error: 'e', code: 'PROVIDER_UNAVAILABLE' } as const;
    expect(outcomeCommand(JobPhase.RUNNING, unavailable)).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    expect(outcomeCommand(JobPhase.RUNNING, { state: 'cancelled' })).toEqual({
      type: 'FAIL',
      error: CANCELLED_OUTSIDE,
      code: 'CANCELLED_OUTSIDE',
    });
  });

  it('confirms cancellation of a cancelling job whatever its run ended with', () => {
    for (const state of [
      { state: 'completed', answer: 'a' },
      { state: 'failed', error: 'e' },
      { state: 'cancelled' },
    ] as const) {
      expect(outcomeCommand(JobPhase.CANCELLING, state)).toEqual({ type: 'CANCEL_CONFIRMED' });
    }
    expect(outcomeCommand(JobPhase.CANCELLING, { state: 'running' })).toBeNull();
  });
});

describe('transitionAll', () => {
  it('composes acknowledge and complete into one outcome for an instant turn', () => {
    const runId = asRunId('run_job_1');
    const outcome = transitionAll(
      admitting,
      [
        () => ({ type: 'ACKNOWLEDGE', runId }),
        (job) => outcomeCommand(job.phase, { state: 'completed', answer: 'done' }),
      ],
      ctx,
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.job).toMatchObject({ phase: JobPhase.COMPLETED, runId, result: { text: 'done', truncated: false } });
    expect(outcome.effects.some((effect) => effect.type === 'APPEND_RECORD')).toBe(true);
  });

  it('stops at the first refused command', () => {
    const outcome = transitionAll(admitting, [() => ({ type: 'COMPLETE', answer: 'too early' })], ctx);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.code).toBe('INVALID_TRANSITION');
  });

  it('skips steps that answer no command', () => {
    const outcome = transitionAll(admitting, [() => null], ctx);
    expect(outcome).toEqual({ ok: true, job: admitting, effects: [] });
  });
});
