import {
  type AdmissionSnapshot,
  EMPTY_ROUND,
  ErrorCode,
  type FreezeContext,
  type Job,
  JobPhase,
  Limits,
  TeamStatus,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { makeJobZoo } from '../zoo.js';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases that need one job in every phase: admission, active work, inbox, delete. */
export function describeAdmissionCases(h: () => StoreHarness): void {
  const zoo = () => makeJobZoo(h().store, { ids: h().ids, now: h().now(), owner: ALICE });
  const admitAll = async (seen: AdmissionSnapshot[] = [], contexts: FreezeContext[] = []) => {
    const now = h().now();
    return h().store.admit({
      now,
      plan: (snapshot) => {
        seen.push(snapshot);
        const free = Math.max(0, snapshot.capacity - snapshot.active);
        const admit = snapshot.candidates.slice(0, free).map((c) => c.jobId);
        return { admit, round: { rotation: [ALICE], served: admit.length > 0 ? [ALICE] : [] } };
      },
      freeze: (ctx) => {
        contexts.push(ctx);
        if (ctx.job.phase === JobPhase.ANSWERED) return transition(ctx.job, { type: 'RESUME' }, { now, ids: h().ids });
        const input = {
          kind: 'request' as const,
          jobId: ctx.job.id,
          teamId: ctx.team.id,
          text: ctx.job.text,
          memberName: 'm',
          requesterName: null,
          receipt: null,
          context: {},
        };
        return transition(ctx.job, { type: 'FREEZE', input, runKey: ctx.job.id }, { now, ids: h().ids });
      },
    });
  };

  describe('admission and bulk reads over the zoo', () => {
    it('lists exactly the jobs holding a slot', async () => {
      const { jobs } = await zoo();
      const active = await h().store.listActiveJobs();
      expect(active.map((j) => j.phase).sort()).toEqual(['ADMITTING', 'CANCELLING', 'RESUMING', 'RUNNING']);
      expect(active.map((j) => j.id).sort()).toEqual(
        [jobs.ADMITTING.id, jobs.CANCELLING.id, jobs.RESUMING.id, jobs.RUNNING.id].sort(),
      );
    });

    it('admits only the QUEUED or ANSWERED head of a conversation and counts WAITING_INPUT as no slot', async () => {
      const { jobs, team, members } = await zoo();
      const seen: AdmissionSnapshot[] = [];
      const contexts: FreezeContext[] = [];
      const admitted = await admitAll(seen, contexts);
      expect(seen).toHaveLength(1);
      expect(at(seen, 0)).toMatchObject({ active: 4, capacity: Limits.activeJobs, round: EMPTY_ROUND });
      expect(at(seen, 0).candidates).toEqual([
        expect.objectContaining({
          jobId: jobs.QUEUED.id,
          owner: ALICE,
          teamId: team.id,
          conversationId: jobs.QUEUED.conversationId,
          seq: jobs.QUEUED.seq,
        }),
        expect.objectContaining({ jobId: jobs.ANSWERED.id, conversationId: jobs.ANSWERED.conversationId }),
      ]);
      expect(admitted.map((a) => [a.job.id, a.job.phase])).toEqual([
        [jobs.QUEUED.id, JobPhase.ADMITTING],
        [jobs.ANSWERED.id, JobPhase.RESUMING],
      ]);
      // What the runtime needs next is in the stored job itself: the frozen turn, or the answer.
      expect(at(admitted, 0).job).toMatchObject({ runKey: jobs.QUEUED.id, input: { jobId: jobs.QUEUED.id } });
      expect(at(admitted, 1).job.pendingResponse).toEqual(jobs.ANSWERED.pendingResponse);
      expect(at(contexts, 0)).toMatchObject({ team: expect.objectContaining({ id: team.id }), members });
      expect(at(contexts, 0).recentRecords.length).toBe(Limits.contextMessages);
      for (const phase of Object.keys(jobs) as JobPhase[]) {
        if (phase === JobPhase.QUEUED || phase === JobPhase.ANSWERED) continue;
        expect(await h().store.findJob(ALICE, jobs[phase].id)).toEqual(jobs[phase]);
      }
    });

    it('persists the round state for the next pass and never admits a non-candidate', async () => {
      const { jobs } = await zoo();
      await h().store.admit({
        now: h().now(),
        plan: () => ({
          admit: [jobs.WAITING_INPUT.id, jobs.COMPLETED.id],
          round: { rotation: [ALICE, BOB], served: [BOB] },
        }),
        freeze: () => {
          throw new Error('nothing to freeze');
        },
      });
      const seen: AdmissionSnapshot[] = [];
      await admitAll(seen);
      expect(at(seen, 0).round).toEqual({ rotation: [ALICE, BOB], served: [BOB] });
      expect((await h().store.findJob(ALICE, jobs.WAITING_INPUT.id))?.phase).toBe(JobPhase.WAITING_INPUT);
    });

    it('offers one head per conversation and skips teams that are not READY', async () => {
      const ready = await h().team();
      const first = at(await h().send(ready.team, [at(ready.members, 0)]), 0);
      await h().send(ready.team, [at(ready.members, 0)]);
      const creating = await h().team({ status: TeamStatus.CREATING });
      await h().send(creating.team, [at(creating.members, 0)]);
      const lost = await h().team({ owner: BOB, status: TeamStatus.DISCONNECTED });
      await h().send(lost.team, [at(lost.members, 0)]);
      const seen: AdmissionSnapshot[] = [];
      await admitAll(seen);
      expect(at(seen, 0).candidates.map((c) => c.jobId)).toEqual([first.id]);
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

    it('refuses to delete a team with unfinished work and deletes nothing', async () => {
      const { team, jobs } = await zoo();
      await expectCode(h().store.deleteTeam(ALICE, team.id, h().now()), ErrorCode.PENDING_WORK);
      expect(await h().store.findJob(ALICE, jobs.COMPLETED.id)).toEqual(jobs.COMPLETED);
      expect(await h().store.findTeam(ALICE, team.id)).not.toBeNull();
    });

    it('deletes a finished team with its members, jobs, record and events, keeping conversations and other teams', async () => {
      const other = await zoo();
      const { team, members } = await h().team();
      const [job] = await h().send(team, [at(members, 0)]);
      await h().store.updateJob(
        (job as Job).id,
        (j) => transition(j, { type: 'CANCEL' }, { now: h().now(), ids: h().ids }),
        { now: h().now() },
      );
      const conversation = at(members, 0).conversationId;
      await h().store.appendConversation(
        conversation,
        [{ role: 'USER', text: 'hi', toolName: null, jobId: null }],
        h().now(),
      );
      const lastSeq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq ?? 0;
      await h().store.deleteTeam(ALICE, team.id, h().now());
      expect(await h().store.findTeam(ALICE, team.id)).toBeNull();
      expect(await h().store.findJob(ALICE, (job as Job).id)).toBeNull();
      expect(await h().store.listMembers([team.id])).toEqual([]);
      expect(await h().store.recentRecords(team.id, 10)).toEqual([]);
      expect(await h().store.readEvents(team.id, 0, 10)).toEqual([]);
      expect((await h().store.listConversation(conversation, { first: 10, afterSeq: null })).items).toHaveLength(1);
      expect(h().publishedEvents.at(-1)).toMatchObject({ teamId: team.id, kind: 'TEAM_CHANGED', seq: lastSeq + 1 });
      expect(await h().store.findJob(ALICE, other.jobs.COMPLETED.id)).toEqual(other.jobs.COMPLETED);
      expect((await h().store.listActiveJobs()).length).toBe(4);
    });
  });
}
