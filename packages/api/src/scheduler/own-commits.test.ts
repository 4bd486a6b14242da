import { type JobId, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { OwnCommits, ownCommitEvent } from './own-commits.js';

describe('OwnCommits', () => {
  it('names a write only while its window is open, and each instance only its own', () => {
    const steps = new OwnCommits<string>();
    const admission = new OwnCommits<'admission'>();
    const step = steps.window('job_1');
    expect(steps.current()).toBeUndefined();
    step.opened();
    expect([steps.current(), admission.current()]).toEqual(['job_1', undefined]);
    step.closed();
    expect(steps.current()).toBeUndefined();
    // A window is reusable: the admission passes one object with every write.
    const pass = admission.window('admission');
    for (let i = 0; i < 2; i += 1) {
      pass.opened();
      expect([steps.current(), admission.current()]).toEqual([undefined, 'admission']);
      pass.closed();
    }
    expect(admission.current()).toBeUndefined();
  });
});

describe('ownCommitEvent', () => {
  const ours = (jobId: JobId) => jobId === 'job_a';
  const event = (kind: TeamEvent['kind'], jobId: string | null) => ({ kind, jobId }) as TeamEvent;

  it.each([
    [TeamEventKind.JOB_CHANGED, 'job_a', true],
    [TeamEventKind.JOB_CHANGED, 'job_b', false],
    [TeamEventKind.JOB_CHANGED, null, false],
    [TeamEventKind.MESSAGE_DELIVERED, 'job_a', true],
    [TeamEventKind.MESSAGE_DELIVERED, 'job_b', false],
    [TeamEventKind.MEMBER_CHANGED, null, true],
    [TeamEventKind.RECORD_APPENDED, null, true],
    [TeamEventKind.MESSAGE_SENT, null, false],
    [TeamEventKind.TEAM_CHANGED, null, false],
    [TeamEventKind.TASK_CHANGED, null, false],
    [TeamEventKind.MEMBER_RETIRED, null, false],
  ] as const)('%s of %s leaves admission as it was: %s', (kind, jobId, expected) => {
    expect(ownCommitEvent(event(kind, jobId), ours)).toBe(expected);
  });
});
