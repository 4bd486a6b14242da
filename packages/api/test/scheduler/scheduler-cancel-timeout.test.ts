import { CANCELLED_AFTER_START, JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest, OWNER, waitFor, waitForPhases } from './scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

async function runRows(jobId: string) {
  return h.database.db.selectFrom('runtime_runs').select(['run_key', 'state']).where('job_id', '=', jobId).execute();
}

describe('scheduler cancellation and deadlines', () => {
  it('cancels a sleeping job through CANCELLING to CANCELLED, without a result or receipt', async () => {
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 600000');
    if (!job) throw new Error('no job');
    await waitForPhases(h, [job.id], [JobPhase.RUNNING]);
    const { job: cancelling } = await h.core.jobs.cancel(OWNER, job.id);
    expect(cancelling.phase).toBe(JobPhase.CANCELLING);
    const [cancelled] = await waitForPhases(h, [job.id], [JobPhase.CANCELLED], 5_000);
    // The job keeps the cancellation notice, never an answer of the run.
    expect(cancelled?.result?.text).toBe(CANCELLED_AFTER_START);
    expect(await h.store.countJobs(team.id)).toEqual({ requests: 1, receipts: 0 });
    expect(await runRows(job.id)).toEqual([{ run_key: job.id, state: 'cancelled' }]);
  });

  it('fails a turn past its agent deadline with a timed-out message and cancels the run', async () => {
    const { team, members } = await h.team(['hasty', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), '!sleep 5000');
    if (!job) throw new Error('no job');
    const [failed] = await waitForPhases(h, [job.id], [JobPhase.FAILED], 4_000);
    expect(failed?.error).toMatch(/timed out/i);
    const elapsed = Date.parse(failed?.finishedAt ?? '') - Date.parse(failed?.startedAt ?? '');
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(elapsed).toBeLessThan(3_000);
    // The run is cancelled after the job's FAILED commit (`advanceJob`: TIME_OUT, then the
    // runtime's cancel), a write of its own: seen 1–2 ms after FAILED in 3 of 12 runs.
    await waitFor(async () => (await runRows(job.id))[0]?.state === 'cancelled', 'the run cancelled', 5_000);
    expect(await runRows(job.id)).toEqual([{ run_key: job.id, state: 'cancelled' }]);
  });
});
