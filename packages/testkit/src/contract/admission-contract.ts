import {
  type AdmissionSnapshot,
  EMPTY_ROUND,
  type FreezeContext,
  JobPhase,
  Limits,
  RecordKind,
  TeamStatus,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import type { ZooPhase } from '../zoo.js';
import { ALICE, at, BOB, type StoreHarness } from './store-harness.js';

/** Contract cases of `Admission`: the planner sees the right snapshot; only its candidates are admitted. */
export function describeAdmissionCases(h: () => StoreHarness): void {
  const zoo = () => h().zoo();
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
        return h().freeze(ctx, now);
      },
    });
  };

  describe('admission', () => {
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
      // The admitted jobs come back exactly as a read finds them after the commit.
      for (const entry of admitted) expect(await h().store.findJob(ALICE, entry.job.id)).toEqual(entry.job);
      for (const phase of Object.keys(jobs) as ZooPhase[]) {
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

    it('gives every job of a team frozen in one pass the newest records, one appended by an earlier freeze of the pass too', async () => {
      const { team, members } = await h().team();
      const sent = await h().send(team, members);
      const contexts: FreezeContext[] = [];
      const now = h().now();
      const admitted = await h().store.admit({
        now,
        plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: EMPTY_ROUND }),
        freeze: (ctx) => {
          contexts.push(ctx);
          // The first job is cancelled by its freeze, which appends its CANCELLED record.
          if (ctx.job.id === at(sent, 0).id) return transition(ctx.job, { type: 'CANCEL' }, { now, ids: h().ids });
          return h().freeze(ctx, now);
        },
      });
      expect(contexts.map((ctx) => ctx.job.id)).toEqual(sent.map((job) => job.id));
      expect(admitted.map((a) => a.job.phase)).toEqual([JobPhase.CANCELLED, JobPhase.ADMITTING, JobPhase.ADMITTING]);
      const before = at(contexts, 0).recentRecords;
      const after = at(contexts, 1).recentRecords;
      expect(after.slice(0, -1)).toEqual(before.slice(-(Limits.contextMessages - 1)));
      expect(after.at(-1)).toMatchObject({ kind: RecordKind.CANCELLED, jobId: at(sent, 0).id });
      expect(at(contexts, 2).recentRecords).toEqual(after);
      expect(await h().store.recentRecords(team.id, Limits.contextMessages)).toEqual(after);
    });
  });
}
