import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { Limits } from '../limits/limits.js';
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

  it('refuses every command on a phase it does not know (a row another build wrote), leaving the job as it was', () => {
    for (const phase of ['PAUSED', '', 'toString', '__proto__']) {
      const job = { ...makeTestJob(JobPhase.RUNNING), phase: phase as JobPhase };
      for (const type of JOB_COMMAND_TYPES) {
        const outcome = transition(job, sampleCommand(type), testContext());
        expect(outcome.ok ? 'accepted' : outcome.error.code, `${type} on ${phase}`).toBe(ErrorCode.INVALID_TRANSITION);
      }
      expect(job.phase).toBe(phase);
    }
  });

  it('has empty terminal rows', () => {
    expect(JOB_TRANSITIONS.COMPLETED).toEqual({});
    expect(JOB_TRANSITIONS.FAILED).toEqual({});
    expect(JOB_TRANSITIONS.CANCELLED).toEqual({});
  });
});

describe('starting and resuming runs', () => {
  it('freezes the input and run key and stamps startedAt; the ADMITTING job itself says what to start', () => {
    const command = sampleCommand('FREEZE');
    const outcome = transition(makeTestJob(JobPhase.QUEUED), command, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.ADMITTING, runKey: 'job_1', startedAt: TEST_NOW });
    expect(outcome.job.input).toEqual(command.type === 'FREEZE' ? command.input : null);
    expect(outcome.effects).toEqual([]);
  });

  it('records the run id of an acknowledged start with no effect', () => {
    const outcome = transition(makeTestJob(JobPhase.ADMITTING), sampleCommand('ACKNOWLEDGE'), testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.runId).toBe('run_2');
    expect(outcome.effects).toEqual([]);
  });

  it('records the run acknowledged while cancellation is pending (to cancel it) and stays CANCELLING', () => {
    for (const type of ['ACKNOWLEDGE', 'RESUMED'] as const) {
      const job = makeTestJob(JobPhase.CANCELLING, { runId: null });
      const outcome = transition(job, sampleCommand(type), testContext());
      if (!outcome.ok) throw outcome.error;
      expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLING, runId: 'run_2' });
      expect(outcome.effects).toEqual([]);
    }
  });

  it('stores a clarification question cut to its byte budget', () => {
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
    const resumed = transition(outcome.job, { type: 'RESUME' }, testContext());
    if (!resumed.ok) throw resumed.error;
    expect(resumed.job).toMatchObject({ phase: JobPhase.RESUMING, pendingResponse: command.response });
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
  it('moves an ADMITTING, RUNNING or RESUMING job to CANCELLING, keeping the run to stop', () => {
    for (const phase of [JobPhase.ADMITTING, JobPhase.RUNNING, JobPhase.RESUMING]) {
      const job = makeTestJob(phase);
      const outcome = transition(job, { type: 'CANCEL' }, testContext());
      if (!outcome.ok) throw outcome.error;
      expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLING, runId: job.runId });
    }
  });

  it('ends a job waiting for input at once (its run already ended)', () => {
    const outcome = transition(makeTestJob(JobPhase.WAITING_INPUT), { type: 'CANCEL' }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLED, pendingInput: null });
    expect(outcome.job.result?.text).toBe(CANCELLED_AFTER_START);
    expect(outcome.effects.map((e) => e.type)).toEqual(['APPEND_RECORD']);
  });

  it('ends an answered job at once: its answer was never submitted', () => {
    const outcome = transition(makeTestJob(JobPhase.ANSWERED), { type: 'CANCEL' }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.CANCELLED, pendingResponse: null });
    expect(outcome.effects.map((e) => e.type)).toEqual(['APPEND_RECORD']);
  });
});
