import { DomainError, ErrorCode, type Job, JobPhase, type TransitionOutcome } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** A decide that moves any job to `phase` (enough to exercise the store; the core owns the rules). */
const moveTo =
  (phase: Job['phase'], extra: Partial<Job> = {}) =>
  (job: Job): TransitionOutcome => ({ ok: true, job: { ...job, ...extra, phase }, effects: [] });

async function waitingJob(h: StoreHarness): Promise<Job> {
  const { team, members } = await h.team();
  const job = at(await h.send(team, [at(members, 0)]), 0);
  const pendingInput = { kind: 'CLARIFICATION' as const, requestId: 'input_1', question: 'Which colour?' };
  return (await h.store.updateJob(job.id, moveTo(JobPhase.WAITING_INPUT, { pendingInput }), { now: h.now() })).job;
}

/** Contract cases of `JobWrites.respondToJob`: idempotent answers keyed by (job, clientRequestId). */
export function describeRespondCases(h: () => StoreHarness): void {
  describe('answers', () => {
    it('applies the decision once and answers a repeated key with the job as it is now', async () => {
      const job = await waitingJob(h());
      const args = { owner: ALICE, jobId: job.id, clientRequestId: 'a1', fingerprint: 'f1' };
      const first = await h().store.respondToJob({ ...args, now: h().now(), decide: moveTo(JobPhase.RESUMING) });
      expect(first.replayed).toBe(false);
      expect(first.job.phase).toBe(JobPhase.RESUMING);
      await h().store.updateJob(job.id, moveTo(JobPhase.COMPLETED), { now: h().now() });
      const revision = (await h().store.findTeam(ALICE, job.teamId))?.revision;
      let decided = 0;
      const again = await h().store.respondToJob({
        ...args,
        now: h().now(),
        decide: (current) => {
          decided += 1;
          return moveTo(JobPhase.RESUMING)(current);
        },
      });
      expect(again).toMatchObject({ replayed: true });
      expect(again.job.phase).toBe(JobPhase.COMPLETED);
      expect(decided).toBe(0);
      expect((await h().store.findTeam(ALICE, job.teamId))?.revision).toBe(revision);
    });

    it('refuses a used key with another fingerprint with IDEMPOTENCY_CONFLICT, changing nothing', async () => {
      const job = await waitingJob(h());
      const args = { owner: ALICE, jobId: job.id, clientRequestId: 'a1' };
      await h().store.respondToJob({ ...args, fingerprint: 'f1', now: h().now(), decide: moveTo(JobPhase.RESUMING) });
      const before = await h().store.findJob(ALICE, job.id);
      await expectCode(
        h().store.respondToJob({ ...args, fingerprint: 'f2', now: h().now(), decide: moveTo(JobPhase.CANCELLED) }),
        ErrorCode.IDEMPOTENCY_CONFLICT,
      );
      expect(await h().store.findJob(ALICE, job.id)).toEqual(before);
    });

    it('stores neither the job nor the key when the decision is refused', async () => {
      const job = await waitingJob(h());
      const args = { owner: ALICE, jobId: job.id, clientRequestId: 'a1' };
      const refusal = new DomainError(ErrorCode.INVALID_RESPONSE, 'no');
      const published = h().published.length;
      await expectCode(
        h().store.respondToJob({
          ...args,
          fingerprint: 'bad',
          now: h().now(),
          decide: () => ({ ok: false, error: refusal }),
        }),
        ErrorCode.INVALID_RESPONSE,
      );
      expect(await h().store.findJob(ALICE, job.id)).toEqual(job);
      expect(h().published.length).toBe(published);
      // The key was not consumed: a valid answer with it (and other content) goes through.
      const ok = await h().store.respondToJob({
        ...args,
        fingerprint: 'good',
        now: h().now(),
        decide: moveTo(JobPhase.RESUMING),
      });
      expect(ok.job.phase).toBe(JobPhase.RESUMING);
    });

    it("answers NOT_FOUND for an absent job or another owner's", async () => {
      const job = await waitingJob(h());
      const args = { jobId: job.id, clientRequestId: 'a1', fingerprint: 'f', decide: moveTo(JobPhase.RESUMING) };
      await expectCode(h().store.respondToJob({ ...args, owner: BOB, now: h().now() }), ErrorCode.NOT_FOUND);
      expect(await h().store.findJob(ALICE, job.id)).toEqual(job);
    });

    it('keys answers per job: the same clientRequestId on two jobs is two answers', async () => {
      const one = await waitingJob(h());
      const two = await waitingJob(h());
      for (const job of [one, two]) {
        const answered = await h().store.respondToJob({
          owner: ALICE,
          jobId: job.id,
          clientRequestId: 'same',
          fingerprint: 'f',
          now: h().now(),
          decide: moveTo(JobPhase.RESUMING),
        });
        expect(answered).toMatchObject({ replayed: false, job: { phase: JobPhase.RESUMING } });
      }
    });
  });
}
