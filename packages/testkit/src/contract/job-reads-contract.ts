import {
  asJobId,
  ErrorCode,
  findJobViews,
  type Job,
  JobKind,
  JobPhase,
  JobStatus,
  type JobView,
  type TransitionOutcome,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** A job without its frozen input: what a `JobView` must show of it. */
const withoutInput = (job: JobView) => Object.fromEntries(Object.entries(job).filter(([key]) => key !== 'input'));

/** Contract cases of `JobReads`, over the zoo of one job in every phase where a bulk read must leave the others alone. */
export function describeJobReadsCases(h: () => StoreHarness): void {
  const zoo = () => h().zoo();
  describe('job reads', () => {
    it("answers NOT_FOUND for an absent job or another owner's, and scopes findJob", async () => {
      const { team, members } = await h().team();
      const job = at(await h().send(team, [at(members, 0)]), 0);
      const id = job.id;
      const keep = (current: Job): TransitionOutcome => ({ ok: true, job: current, effects: [] });
      await expectCode(h().store.updateJob(asJobId('job_missing'), keep, { now: h().now() }), ErrorCode.NOT_FOUND);
      await expectCode(h().store.updateJob(id, keep, { now: h().now(), owner: BOB }), ErrorCode.NOT_FOUND);
      expect((await h().store.updateJob(id, keep, { now: h().now(), owner: ALICE })).changed).toBe(false);
      expect(await h().store.findJob(BOB, id)).toBeNull();
      expect((await h().store.findJobs([asJobId('job_missing'), id])).map((j) => j.id)).toEqual([id]);
    });

    it('filters and pages team jobs with the filtered total', async () => {
      const { team, members } = await h().team();
      const [a, b, c] = (await h().send(team, members)) as [Job, Job, Job];
      await h().store.updateJob(b.id, h().failWith(null), { now: h().now() });
      const all = await h().store.listJobs(team.id, {}, { first: 2, afterSeq: null });
      expect(all.items.map((j) => j.id)).toEqual([a.id, b.id]);
      expect(all).toMatchObject({ hasNextPage: true, totalCount: 3 });
      const rest = await h().store.listJobs(team.id, {}, { first: 2, afterSeq: all.items[1]?.seq ?? null });
      expect(rest.items.map((j) => j.id)).toEqual([c.id]);
      const queued = await h().store.listJobs(team.id, { statuses: [JobStatus.QUEUED] }, { first: 10, afterSeq: null });
      expect(queued.items.map((j) => j.id)).toEqual([a.id, c.id]);
      const failed = await h().store.listJobs(
        team.id,
        { statuses: [JobStatus.FAILED], kind: JobKind.REQUEST },
        { first: 10, afterSeq: null },
      );
      expect(failed).toMatchObject({ totalCount: 1, items: [expect.objectContaining({ id: b.id })] });
      const forMember = await h().store.listJobs(
        team.id,
        { memberId: at(members, 2).id },
        { first: 10, afterSeq: null },
      );
      expect(forMember.items.map((j) => j.id)).toEqual([c.id]);
    });

    it('matches no job for an empty list of statuses, as for any other list of them', async () => {
      const { team, members } = await h().team();
      await h().send(team, members);
      const none = await h().store.listJobs(team.id, { statuses: [] }, { first: 10, afterSeq: null });
      expect(none).toMatchObject({ items: [], hasNextPage: false, totalCount: 0 });
      const any = await h().store.listJobs(team.id, { statuses: null }, { first: 10, afterSeq: null });
      expect(any.totalCount).toBe(members.length);
    });

    it('pages every field of a job in every phase but, at most, its frozen input', async () => {
      const { team, jobs } = await zoo();
      const page = await h().store.listJobs(team.id, {}, { first: 100, afterSeq: null });
      const full = await h().store.findJobs(page.items.map((j) => j.id));
      expect(page.items.map((j) => j.phase).sort()).toEqual(Object.keys(jobs).sort());
      // A store may leave the frozen input unread on a page (`JobView`); nothing else may differ.
      expect(page.items.map(withoutInput)).toEqual(full.map(withoutInput));
      const waiting = await h().store.listWaitingJobs(ALICE, { first: 100, afterSeq: null });
      expect(waiting.items.map(withoutInput)).toEqual([withoutInput(jobs.WAITING_INPUT)]);
    });

    it('reads jobs by id without, at most, their frozen inputs, in the order asked', async () => {
      const { jobs } = await zoo();
      const ids = [asJobId('job_missing'), ...Object.values(jobs).map((j) => j.id)].reverse();
      const full = await h().store.findJobs(ids);
      // The store's own `findJobViews` when it has one, else its whole jobs.
      const views = await findJobViews(h().store, ids);
      expect(views.map((j) => j.id)).toEqual(full.map((j) => j.id));
      expect(views.map(withoutInput)).toEqual(full.map(withoutInput));
      expect(await findJobViews(h().store, [])).toEqual([]);
    });

    it('lists exactly the jobs holding a slot', async () => {
      const { jobs } = await zoo();
      const active = await h().store.listActiveJobs();
      expect(active.map((j) => j.phase).sort()).toEqual(['ADMITTING', 'CANCELLING', 'RESUMING', 'RUNNING']);
      expect(active.map((j) => j.id).sort()).toEqual(
        [jobs.ADMITTING.id, jobs.CANCELLING.id, jobs.RESUMING.id, jobs.RUNNING.id].sort(),
      );
    });

    it('reports the head and the most recently finished phase of each conversation', async () => {
      const { jobs, members } = await zoo();
      const states = await h().store.conversationStates(members.map((m) => m.conversationId));
      expect(members.map((m) => states.get(m.conversationId)?.head ?? null)).toEqual([
        'QUEUED',
        'ADMITTING',
        'RUNNING',
        'RESUMING',
        'CANCELLING',
        'WAITING_INPUT',
        null,
        null,
        'ANSWERED',
        'WAITING_CHANGE',
      ]);
      expect(states.get(at(members, 6).conversationId)?.lastFinished).toBe(JobPhase.COMPLETED);
      expect(states.get(at(members, 0).conversationId)?.lastFinished).toBeNull();
      // The older job finishes last, so it is the most recent finish despite its lower seq.
      const { team, members: roster } = await h().team();
      const older = at(await h().send(team, [at(roster, 0)]), 0);
      const newer = at(await h().send(team, [at(roster, 0)]), 0);
      const step = (job: Job, command: Parameters<typeof transition>[1]) =>
        h().store.updateJob(job.id, (j) => transition(j, command, { now: h().now(), ids: h().ids }), {
          now: h().now(),
        });
      await step(newer, { type: 'CANCEL' });
      await step(older, { type: 'FAIL', error: 'x' });
      const conversation = at(roster, 0).conversationId;
      const later = await h().store.conversationStates([conversation]);
      expect(later.get(conversation)).toEqual({ head: null, lastFinished: JobPhase.FAILED });
      expect(jobs.FAILED.phase).toBe(JobPhase.FAILED);
    });

    it("lists only the owner's jobs waiting for input, oldest first", async () => {
      const { jobs } = await zoo();
      const page = await h().store.listWaitingJobs(ALICE, { first: 10, afterSeq: null });
      expect(page).toMatchObject({ totalCount: 1, hasNextPage: false });
      expect(page.items.map((j) => j.id)).toEqual([jobs.WAITING_INPUT.id]);
      expect((await h().store.listWaitingJobs(BOB, { first: 10, afterSeq: null })).totalCount).toBe(0);
      const after = await h().store.listWaitingJobs(ALICE, { first: 10, afterSeq: jobs.WAITING_INPUT.seq });
      expect(after).toMatchObject({ items: [], totalCount: 1 });
    });
  });
}
