import { describe, expect, it } from 'vitest';
import { JobPhase } from '../model/job.js';
import type { JobCommand } from './job-commands.js';
import { JobErrorCode } from './job-error-code.js';
import { transition } from './job-machine.js';
import { makeTestJob, testContext } from './make-test-job.js';

function apply(phase: JobPhase, ...commands: JobCommand[]) {
  let job = makeTestJob(phase);
  for (const command of commands) {
    const outcome = transition(job, command, testContext());
    if (!outcome.ok) throw outcome.error;
    job = outcome.job;
  }
  return job;
}

describe('Job.errorCode through the job machine', () => {
  it('fails with the code the command names, RUNTIME_ERROR without one', () => {
    expect(apply(JobPhase.RUNNING, { type: 'FAIL', error: 'boom' })).toMatchObject({
      phase: JobPhase.FAILED,
      errorCode: JobErrorCode.RUNTIME_ERROR,
    });
    const budget = apply(JobPhase.RUNNING, { type: 'FAIL', error: 'over', code: JobErrorCode.BUDGET_EXHAUSTED });
    expect(budget).toMatchObject({ phase: JobPhase.FAILED, errorCode: 'BUDGET_EXHAUSTED', error: 'over' });
  });

  it('marks a timed-out turn TIMEOUT', () => {
    expect(apply(JobPhase.RUNNING, { type: 'TIME_OUT', timeoutMs: 5 }).errorCode).toBe(JobErrorCode.TIMEOUT);
  });

  it('records who cancelled, also across CANCELLING until the run confirms', () => {
    expect(apply(JobPhase.QUEUED, { type: 'CANCEL' }).errorCode).toBe(JobErrorCode.CANCELLED_BY_PERSON);
    const byLead = apply(JobPhase.RUNNING, { type: 'CANCEL', code: JobErrorCode.CANCELLED_BY_LEAD });
    expect(byLead).toMatchObject({ phase: JobPhase.CANCELLING, errorCode: JobErrorCode.CANCELLED_BY_LEAD });
    const confirmed = apply(
      JobPhase.RUNNING,
      { type: 'CANCEL', code: JobErrorCode.CANCELLED_BY_LEAD },
      { type: 'CANCEL_CONFIRMED' },
    );
    expect(confirmed).toMatchObject({ phase: JobPhase.CANCELLED, errorCode: JobErrorCode.CANCELLED_BY_LEAD });
    // The run failed on its own while being cancelled: still cancelled, by whoever asked.
    const raced = apply(JobPhase.RUNNING, { type: 'CANCEL' }, { type: 'FAIL', error: 'late' });
    expect(raced).toMatchObject({ phase: JobPhase.CANCELLED, errorCode: JobErrorCode.CANCELLED_BY_PERSON });
  });

  it('leaves errorCode null on completed and waiting jobs', () => {
    expect(apply(JobPhase.RUNNING, { type: 'COMPLETE', answer: 'ok' }).errorCode).toBeNull();
    expect(apply(JobPhase.QUEUED).errorCode).toBeNull();
  });
});
