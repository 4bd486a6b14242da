import { asJobId, type Job } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { progressView } from './job-progress.js';

// Only the id is read by progressView; the rest of a job does not matter here.
const job = (id: string) => ({ id: asJobId(id) }) as unknown as Job;

describe('progressView', () => {
  it('gives every subscription of a job the same view of one notice, so the live server serializes it once', () => {
    const notice: JobProgressNotice = { jobId: asJobId('job_1'), textDelta: 'Hel' };
    const first = progressView(notice, job('job_1'));
    // Another subscription's snapshot of the same job (a different object).
    const second = progressView(notice, job('job_1'));
    expect(second).toBe(first);
    expect(first).toEqual({ job: expect.objectContaining({ id: 'job_1' }), textDelta: 'Hel', toolCall: null });
  });

  it('makes a new view for each notice, and never hands one job’s view to another job', () => {
    const a: JobProgressNotice = { jobId: asJobId('job_1'), textDelta: 'a' };
    const b: JobProgressNotice = { jobId: asJobId('job_1'), toolCall: 'read_team_history' };
    expect(progressView(b, job('job_1'))).not.toBe(progressView(a, job('job_1')));
    expect(progressView(b, job('job_1'))).toMatchObject({ textDelta: null, toolCall: 'read_team_history' });
    expect(progressView(a, job('job_2')).job.id).toBe('job_2');
  });
});
