import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { Limits } from '../limits/limits.js';
import { JobPhase } from '../model/job.js';
import { CANCELLED_AFTER_START } from './finish-job.js';
import { transition } from './job-machine.js';
import { makeTestJob, sampleCommand, TEST_WAIT, testContext } from './make-test-job.js';

describe('the durable wait in the job machine', () => {
  it('parks a running job with its wait (AWAIT_CHANGE) and keeps its run', () => {
    const wait = { ...TEST_WAIT, requestId: 'w_9' };
    const outcome = transition(makeTestJob(JobPhase.RUNNING), { type: 'AWAIT_CHANGE', wait }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.WAITING_CHANGE, wait, runId: 'run_1' });
    expect(outcome.effects).toEqual([]);
  });

  it('wakes into RESUMING with the result as its pending answer, and clears the wait', () => {
    const outcome = transition(makeTestJob(JobPhase.WAITING_CHANGE), sampleCommand('WAKE'), testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({ phase: JobPhase.RESUMING, wait: null, runKey: 'job_1:wake:w_1' });
    expect(outcome.job.pendingResponse).toMatchObject({ kind: 'CHANGE', inputRequestId: 'w_1' });
  });

  it('refuses a wake-up for another wait, changing nothing', () => {
    const job = makeTestJob(JobPhase.WAITING_CHANGE, { wait: { ...TEST_WAIT, requestId: 'other' } });
    const outcome = transition(job, sampleCommand('WAKE'), testContext());
    expect(outcome.ok ? null : outcome.error.code).toBe(ErrorCode.INVALID_TRANSITION);
  });

  it('ends a waiting job at once on CANCEL, and a parking run of a cancelling job as CANCELLED', () => {
    const cancelled = transition(makeTestJob(JobPhase.WAITING_CHANGE), { type: 'CANCEL' }, testContext());
    if (!cancelled.ok) throw cancelled.error;
    expect(cancelled.job).toMatchObject({ phase: JobPhase.CANCELLED, wait: null, error: CANCELLED_AFTER_START });
    const parked = transition(makeTestJob(JobPhase.CANCELLING), sampleCommand('AWAIT_CHANGE'), testContext());
    if (!parked.ok) throw parked.error;
    expect(parked.job.phase).toBe(JobPhase.CANCELLED);
  });
});

describe('an interrupt (CANCEL with a reason)', () => {
  it('ends a waiting job at once with the reason as its error and result', () => {
    const outcome = transition(
      makeTestJob(JobPhase.WAITING_CHANGE),
      { type: 'CANCEL', reason: 'stop 中 😀' },
      testContext(),
    );
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job).toMatchObject({
      phase: JobPhase.CANCELLED,
      error: 'stop 中 😀',
      result: { text: 'stop 中 😀' },
    });
  });

  it('keeps the reason of a running job through CANCELLING until the run confirms', () => {
    const ctx = testContext();
    const asked = transition(makeTestJob(JobPhase.RUNNING), { type: 'CANCEL', reason: 'new plan' }, ctx);
    if (!asked.ok) throw asked.error;
    expect(asked.job).toMatchObject({ phase: JobPhase.CANCELLING, error: 'new plan' });
    const confirmed = transition(asked.job, { type: 'CANCEL_CONFIRMED' }, ctx);
    if (!confirmed.ok) throw confirmed.error;
    expect(confirmed.job).toMatchObject({ phase: JobPhase.CANCELLED, error: 'new plan' });
  });

  it('cuts a reason past the answer budget', () => {
    const reason = 'x'.repeat(Limits.answerBytes + 1);
    const outcome = transition(makeTestJob(JobPhase.QUEUED), { type: 'CANCEL', reason }, testContext());
    if (!outcome.ok) throw outcome.error;
    expect(outcome.job.error?.length).toBe(Limits.answerBytes);
    expect(outcome.job.result?.truncated).toBe(true);
  });
});
