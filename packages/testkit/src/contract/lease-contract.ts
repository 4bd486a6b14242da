import { ErrorCode, type JobLease, JobPhase, type LeasedJob, transition } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { expectCode, type StoreHarness } from './store-harness.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const TTL = 15_000;

/** Contract cases of `Leases`: claims, expiry, fencing, release, takeover, admission. */
export function describeLeaseCases(h: () => StoreHarness): void {
  const zoo = () => h().zoo();
  const live = (serverId: string, nowMs = T0) =>
    h().store.renewServerLease({ serverId, host: 'test', now: h().now(), expiresAtMs: nowMs + TTL });
  const claimed = (serverId: string, nowMs = T0, takeOver = false) =>
    h().store.claimActiveJobs({ serverId, nowMs, takeOver });
  const claim = async (serverId: string, nowMs = T0, takeOver = false) =>
    (await claimed(serverId, nowMs, takeOver)).held;
  const heldOnly = async (serverId: string, nowMs: number) =>
    (await h().store.claimActiveJobs({ serverId, nowMs, heldOnly: true })).held;
  const ids = (held: readonly LeasedJob[]) => held.map((h) => h.job.id).sort();
  const fences = (held: readonly LeasedJob[]) => new Map(held.map((h) => [h.job.id, h.lease.fence]));
  const activeIds = (jobs: Awaited<ReturnType<typeof zoo>>['jobs']) =>
    [jobs.ADMITTING.id, jobs.RUNNING.id, jobs.RESUMING.id, jobs.CANCELLING.id].sort();

  describe('job leases (many servers on one database)', () => {
    it('gives every unheld active job to the first claimer, once, with a fence that later claims keep', async () => {
      const { jobs } = await zoo();
      await live('a');
      const first = await claim('a');
      expect(ids(first)).toEqual(activeIds(jobs));
      expect(first.every((held) => held.lease.serverId === 'a' && held.lease.fence >= 1)).toBe(true);
      const again = await claim('a', T0 + 1_000);
      expect(fences(again)).toEqual(fences(first));
      expect(first.find((held) => held.job.id === jobs.RUNNING.id)?.job.phase).toBe(JobPhase.RUNNING);
    });

    it('with heldOnly, claims nothing and answers only what the server holds', async () => {
      const { jobs } = await zoo();
      await live('a');
      // Before any claim the active jobs are orphans; a held-only read takes none of them.
      expect(await heldOnly('a', T0)).toEqual([]);
      const first = await claim('a');
      const again = await heldOnly('a', T0 + 1_000);
      expect(ids(again)).toEqual(activeIds(jobs));
      expect(fences(again)).toEqual(fences(first));
      // Another server's held-only read never takes them either, even past a's lease.
      expect(await heldOnly('b', T0 + 10 * TTL)).toEqual([]);
    });

    it("never claims a live server's jobs, and claims all of them once its lease expired", async () => {
      const { jobs } = await zoo();
      await live('a');
      await live('b');
      const byA = await claim('a');
      expect(await claim('b', T0 + TTL - 1)).toEqual([]);
      await live('b', T0 + TTL);
      const byB = await claim('b', T0 + TTL);
      expect(ids(byB)).toEqual(activeIds(jobs));
      for (const held of byB) expect(held.lease.fence).toBe((fences(byA).get(held.job.id) ?? 0) + 1);
      // The old holder finds it holds nothing any more.
      expect(await claim('a', T0 + TTL)).toEqual([]);
    });

    it('refuses a write with a stale fence and changes nothing; the current holder writes', async () => {
      const { jobs } = await zoo();
      await live('a');
      const stale = (await claim('a')).find((held) => held.job.id === jobs.RUNNING.id)?.lease as JobLease;
      await live('b', T0 + TTL);
      const current = (await claim('b', T0 + TTL)).find((held) => held.job.id === jobs.RUNNING.id)?.lease as JobLease;
      const before = h().publishedEvents.length;
      const complete = (lease: JobLease) =>
        h().store.updateJob(
          jobs.RUNNING.id,
          (job) => transition(job, { type: 'COMPLETE', answer: 'done' }, { now: h().now(), ids: h().ids }),
          { now: h().now(), lease },
        );
      await expectCode(complete(stale), ErrorCode.STALE_LEASE);
      expect((await h().store.findJobs([jobs.RUNNING.id]))[0]?.phase).toBe(JobPhase.RUNNING);
      expect(h().publishedEvents.length).toBe(before);
      const done = await complete(current);
      expect(done.job.phase).toBe(JobPhase.COMPLETED);
    });

    it('hands a released server’s jobs to the next claimer at once, without waiting for expiry', async () => {
      const { jobs } = await zoo();
      await live('a');
      await live('b');
      const byA = await claim('a');
      await h().store.releaseServerLeases('a');
      const byB = await claim('b', T0 + 1);
      expect(ids(byB)).toEqual(activeIds(jobs));
      for (const held of byB) expect(held.lease.fence).toBe((fences(byA).get(held.job.id) ?? 0) + 1);
      const old = byA[0]?.lease as JobLease;
      await expectCode(
        h().store.updateJob(
          byA[0]?.job.id as (typeof jobs)['RUNNING']['id'],
          (job) => transition(job, { type: 'FAIL', error: 'x' }, { now: h().now(), ids: h().ids }),
          {
            now: h().now(),
            lease: old,
          },
        ),
        ErrorCode.STALE_LEASE,
      );
    });

    it('takes over every active job when told it is alone, even from a live holder', async () => {
      const { jobs } = await zoo();
      await live('old');
      await claim('old');
      await live('new');
      expect(await claim('new')).toEqual([]);
      const taken = await claim('new', T0, true);
      expect(ids(taken)).toEqual(activeIds(jobs));
      expect(await claim('old')).toEqual([]);
    });

    it('reports the jobs a claim took over with their previous holder, and none when it took nothing', async () => {
      const { jobs } = await zoo();
      await live('a');
      await live('b');
      const first = await claimed('a');
      // Never held before: taken over from nobody.
      expect(first.takenOver).toEqual(first.held.map((held) => ({ jobId: held.job.id, fromServer: null })));
      expect((await claimed('a', T0 + 1_000)).takenOver).toEqual([]);
      expect((await claimed('b', T0 + TTL - 1)).takenOver).toEqual([]);
      await live('b', T0 + TTL);
      const byB = await claimed('b', T0 + TTL);
      expect(byB.takenOver.map((taken) => taken.jobId).sort()).toEqual(activeIds(jobs));
      expect(byB.takenOver).toEqual(byB.held.map((held) => ({ jobId: held.job.id, fromServer: 'a' })));
      await live('alone', T0 + TTL);
      const taken = await claimed('alone', T0 + TTL, true);
      expect(new Set(taken.takenOver.map((job) => job.fromServer))).toEqual(new Set(['b']));
      expect(
        (await h().store.claimActiveJobs({ serverId: 'alone', nowMs: T0 + TTL, heldOnly: true })).takenOver,
      ).toEqual([]);
    });

    it('treats a holder that never registered a lease as dead', async () => {
      const { jobs } = await zoo();
      await claim('ghost');
      await live('b');
      expect(ids(await claim('b'))).toEqual(activeIds(jobs));
    });

    it('leases admitted jobs to the admitting server', async () => {
      const { jobs } = await zoo();
      await live('a');
      await live('b');
      await claim('b');
      const now = h().now();
      const admitted = await h().store.admit({
        now,
        serverId: 'a',
        plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round }),
        freeze: (ctx) => h().freeze(ctx, now),
      });
      expect(admitted.map((a) => a.job.id)).toContain(jobs.QUEUED.id);
      const byA = await claim('a');
      expect(ids(byA)).toEqual(admitted.map((a) => a.job.id).sort());
      expect(ids(await claim('b'))).toEqual(activeIds(jobs));
    });
  });
}
