import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { Limits } from '../limits/limits.js';
import { asRunId } from '../model/ids.js';
import { InputKind, JobPhase } from '../model/job.js';
import { CANCELLED_AFTER_START } from './finish-job.js';
import { JOB_COMMAND_TYPES } from './job-commands.js';
import { JOB_TRANSITIONS, transition } from './job-machine.js';
import { makeTestJob, sampleCommand, TEST_NOW, testContext } from './make-test-job.js';

describe('transition table walk', () => {
  for (const phase of Object.values(JobPhase)) {
    for (const type of JOB_COMMAND_TYPES) {
      const next = JOB_TRANSITIONS[phase][type];
      if (next !== undefined) {
        it(`moves a ${phase} job to ${next} on ${type}`, () => {
          const outcome = transition(makeTestJob(phase), sampleCommand(type), testContext());
          if (!outcome.ok) throw outcome.error;
          expect(outcome.job.phase).toBe(next);
          expect(outcome.job.updatedAt).toBe(TEST_NOW);
        });
      } else {
        it(`refuses ${type} on a ${phase} job and leaves it unchanged`, () => {
          const job = makeTestJob(phase);
          const before = JSON.parse(JSON.stringify(job));
          const outcome = transition(job, sampleCommand(type), testContext());
          expect(outcome.ok).toBe(false);
          if (outcome.ok) return;
          expect(outcome.error.code).toBe(ErrorCode.INVALID_TRANSITION);
          expect(outcome.error.details).toEqual({ phase, command: type });
          expect(job).toEqual(before);
        });
      }
    }
  }

  it('has empty terminal rows', () => {
    expect(JOB_TRANSITIONS.COMPLETED).toEqual({});
    expect(JOB_TRANSITIONS.FAILED).toEqual({});
    expect(JOB_TRANSITIONS.CANCELLED).toEqual({});
  });
});

describe('starting and resuming runs', () => {
  it('freezes the input and run key, stamps startedAt and asks to start the run', () => {
    const command = sampleCommand('FREEZE');
    const outcome = transition(makeTestJob(JobPhase.QUEUED), command, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.ADMITTING, runKey: 'job_1', startedAt: TEST_NOW });
    expect(outcome.effects).toEqual([
      { type: 'START_RUN', runKey: 'job_1', input: command.type === 'FREEZE' ? command.input : null },
    ]);
  });

  it('records the run id of an acknowledged start with no effect', () => {
    const outcome = transition(makeTestJob(JobPhase.ADMITTING), sampleCommand('ACKNOWLEDGE'), testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.runId).toBe('run_2');
    expect(outcome.effects).toEqual([]);
  });

  it('cancels a run acknowledged while cancellation is pending and stays CANCELLING', () => {
    for (const type of ['ACKNOWLEDGE', 'RESUMED'] as const) {
      const job = makeTestJob(JobPhase.CANCELLING, { runId: null });
      const outcome = transition(job, sampleCommand(type), testContext());
      if (!outcome.ok) throw outcome.error;
      expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLING, runId: 'run_2' });
      expect(outcome.effects).toEqual([{ type: 'CANCEL_RUN', runId: asRunId('run_2') }]);
    }
  });

  it('stores a clarification question cut to its byte budget and reports the inbox change', () => {
    const question = `${'数'.repeat(2_666)}ab😀`; // 7,998 + 2 bytes fit; the emoji would overflow
    const command = {
      type: 'ASK_INPUT',
      input: { kind: InputKind.CLARIFICATION, requestId: 'q_9', question },
    } as const;
    const outcome = transition(makeTestJob(JobPhase.RUNNING), command, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.pendingInput).toEqual({
      kind: 'CLARIFICATION',
      requestId: 'q_9',
      question: question.slice(0, -2),
    });
    expect(Limits.questionBytes).toBe(8_000);
    expect(outcome.effects).toEqual([{ type: 'INBOX_CHANGED', waiting: true }]);
  });

  it('keeps an interrupt payload as given', () => {
    const input = { kind: InputKind.INTERRUPT, requestId: 'i_1', payload: { approve: ['deploy'] } } as const;
    const outcome = transition(makeTestJob(JobPhase.RUNNING), { type: 'ASK_INPUT', input }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.pendingInput).toEqual(input);
  });

  it('persists an answer for the pending question with its own run key, to submit once admitted', () => {
    const command = sampleCommand('RESPOND');
    const outcome = transition(makeTestJob(JobPhase.WAITING_INPUT), command, testContext());
    if (!outcome.ok || command.type !== 'RESPOND') throw new Error('expected an accepted answer');
    expect(outcome.job).toMatchObject({ phase: JobPhase.ANSWERED, runKey: 'job_1:q_1' });
    expect(outcome.job.pendingResponse).toEqual(command.response);
    expect(outcome.effects).toEqual([{ type: 'INBOX_CHANGED', waiting: false }]);
    const resumed = transition(outcome.job, { type: 'RESUME' }, testContext());
    if (!resumed.ok) throw resumed.error;
    expect(resumed.job.phase).toBe(JobPhase.RESUMING);
    expect(resumed.effects).toEqual([{ type: 'RESUME_RUN', runKey: 'job_1:q_1', response: command.response }]);
  });

  it('refuses RESUME on an answered job without a pending answer', () => {
    const outcome = transition(
      makeTestJob(JobPhase.ANSWERED, { pendingResponse: null }),
      { type: 'RESUME' },
      testContext(),
    );
    expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.INVALID_TRANSITION);
  });

  it('refuses an answer for another question with INPUT_CHANGED and leaves the job unchanged', () => {
    const stale = makeTestJob(JobPhase.WAITING_INPUT, {
      pendingInput: { kind: InputKind.CLARIFICATION, requestId: 'q_2', question: 'Which year?' },
    });
    const gone = makeTestJob(JobPhase.WAITING_INPUT, { pendingInput: null });
    for (const job of [stale, gone]) {
      const before = JSON.parse(JSON.stringify(job));
      const outcome = transition(job, sampleCommand('RESPOND'), testContext());
      expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.INPUT_CHANGED);
      expect(job).toEqual(before);
    }
  });

  it('clears the answered question once the continuation run is acknowledged', () => {
    const answered = transition(makeTestJob(JobPhase.WAITING_INPUT), sampleCommand('RESPOND'), testContext());
    if (!answered.ok) throw answered.error;
    const resuming = transition(answered.job, { type: 'RESUME' }, testContext());
    if (!resuming.ok) throw resuming.error;
    const outcome = transition(resuming.job, sampleCommand('RESUMED'), testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({
      phase: JobPhase.RUNNING,
      runId: 'run_2',
      pendingInput: null,
      pendingResponse: null,
    });
  });
});

describe('cancelling an admitted job', () => {
  it('asks to cancel the run of an ADMITTING, RUNNING or RESUMING job', () => {
    for (const phase of [JobPhase.ADMITTING, JobPhase.RUNNING, JobPhase.RESUMING]) {
      const job = makeTestJob(phase);
      const outcome = transition(job, { type: 'CANCEL' }, testContext());
      if (!outcome.ok) throw outcome.error;
      expect(outcome.job.phase).toBe(JobPhase.CANCELLING);
      expect(outcome.effects).toEqual([{ type: 'CANCEL_RUN', runId: job.runId }]);
    }
  });

  it('ends a job waiting for input at once (its run already ended) and reports the inbox change', () => {
    const outcome = transition(makeTestJob(JobPhase.WAITING_INPUT), { type: 'CANCEL' }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLED, pendingInput: null });
    expect(outcome.job.result?.text).toBe(CANCELLED_AFTER_START);
    expect(outcome.effects.map((e) => e.type)).toEqual(['APPEND_RECORD', 'INBOX_CHANGED']);
  });

  it('ends an answered job at once: its answer was never submitted', () => {
    const outcome = transition(makeTestJob(JobPhase.ANSWERED), { type: 'CANCEL' }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLED, pendingResponse: null });
    expect(outcome.effects.map((e) => e.type)).toEqual(['APPEND_RECORD']);
  });
});
