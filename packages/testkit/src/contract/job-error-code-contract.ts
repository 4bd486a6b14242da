import { type Job, JobErrorCode, JobPhase, transition } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, type StoreHarness } from './store-harness.js';

/** Contract cases of `Job.errorCode`: stored with the job's step and read back by every read. */
export function describeJobErrorCodeCases(h: () => StoreHarness): void {
  const step = (job: Job, command: Parameters<typeof transition>[1]) =>
    h().store.updateJob(job.id, (j) => transition(j, command, { now: h().now(), ids: h().ids }), { now: h().now() });

  describe('job error codes', () => {
    it('stores the code of a failed or cancelled job and reads it back, null for the others', async () => {
      const { team, members } = await h().team();
      const sent = await h().send(team, members.slice(0, 3));
      const [failed, cancelled, queued] = [at(sent, 0), at(sent, 1), at(sent, 2)];
      await step(failed, { type: 'FAIL', error: 'over budget', code: JobErrorCode.BUDGET_EXHAUSTED });
      await step(cancelled, { type: 'CANCEL', code: JobErrorCode.CANCELLED_BY_LEAD });
      const read = await h().store.findJobs([failed, cancelled, queued].map((j) => j.id));
      const byId = new Map(read.map((j) => [j.id, j]));
      expect(byId.get(failed.id)).toMatchObject({ phase: JobPhase.FAILED, errorCode: 'BUDGET_EXHAUSTED' });
      expect(byId.get(cancelled.id)).toMatchObject({
        phase: JobPhase.CANCELLED,
        errorCode: 'CANCELLED_BY_LEAD',
      });
      expect(byId.get(queued.id)?.errorCode).toBeNull();
      expect((await h().store.findJob(ALICE, failed.id))?.errorCode).toBe('BUDGET_EXHAUSTED');
    });
  });
}
