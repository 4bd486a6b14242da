import {
  asJobId,
  asRecordId,
  DomainError,
  type EnqueueSnapshot,
  ErrorCode,
  type Job,
  JobKind,
  JobPhase,
  RecordKind,
  TeamEventKind,
  type TeamStore,
  type TransitionOutcome,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { makeJobZoo } from '../zoo.js';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases of `JobWrites` (enqueue and one state-machine step per write). */
export function describeJobWritesCases(h: () => StoreHarness): void {
  describe('job writes', () => {
    it('enqueues QUEUED requests with their REQUEST record and events, after showing decide a snapshot', async () => {
      const { team, members } = await h().team();
      const target = members[1] as (typeof members)[number];
      const seen: unknown[] = [];
      const jobId = h().ids.jobId();
      const [job] = await h().store.enqueueRequests({
        owner: ALICE,
        teamId: team.id,
        keys: [{ requesterConversationId: null, clientKey: 'k1', memberId: target.id }],
        roots: [jobId],
        now: h().now(),
        decide: (snapshot) => {
          seen.push(snapshot);
          const insert = [
            {
              id: jobId,
              recordId: asRecordId('record_k1'),
              memberId: target.id,
              conversationId: target.conversationId,
              requester: { memberId: null, conversationId: null },
              parentId: null,
              rootId: jobId,
              clientKey: 'k1',
              text: 'Find sources',
            },
          ];
          return { insert, resultIds: [jobId] };
        },
      });
      expect(seen).toEqual([
        expect.objectContaining({ existing: [], requestCount: 0, chainCounts: new Map([[jobId, 0]]) }),
      ]);
      expect((seen[0] as { team: { id: string } }).team.id).toBe(team.id);
      expect(job).toMatchObject({
        id: jobId,
        kind: JobKind.REQUEST,
        phase: JobPhase.QUEUED,
        memberId: target.id,
        conversationId: target.conversationId,
        rootId: jobId,
        text: 'Find sources',
        input: null,
        result: null,
      });
      const records = await h().store.recentRecords(team.id, 10);
      expect(records).toEqual([
        expect.objectContaining({
          id: 'record_k1',
          kind: RecordKind.REQUEST,
          jobId,
          memberId: target.id,
          fromMemberId: null,
          text: 'Find sources',
          truncated: false,
        }),
      ]);
      const kinds = (await h().store.readEvents(team.id, 0, 100)).map((e) => [
        e.kind,
        e.jobId ?? e.recordId ?? e.memberId,
      ]);
      expect(kinds).toEqual(
        expect.arrayContaining([
          [TeamEventKind.JOB_CHANGED, jobId],
          [TeamEventKind.RECORD_APPENDED, 'record_k1'],
        ]),
      );
    });

    it('answers each inserted job as a later read finds it, its seq included', async () => {
      const { team, members } = await h().team();
      const asked = await h().send(team, [at(members, 1), at(members, 2)], {
        from: at(members, 0),
        text: 'Résumé 調査 🙂',
      });
      const sent = [...asked, ...(await h().send(team, [at(members, 0)]))];
      const read = new Map((await h().store.findJobs(sent.map((job) => job.id))).map((job) => [job.id, job]));
      expect(sent.map((job) => read.get(job.id))).toEqual(sent);
      const seqs = sent.map((job) => job.seq);
      expect(new Set(seqs).size).toBe(3);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    });

    it('shows decide the existing job of a repeated key, and a reused job writes nothing', async () => {
      const { team, members } = await h().team();
      const first = at(await h().send(team, [at(members, 1)], { clientKey: 'same' }), 0);
      const before = await h().store.findTeam(ALICE, team.id);
      const again = at(await h().send(team, [at(members, 1)], { clientKey: 'same' }), 0);
      expect(again.id).toBe(first.id);
      expect(await h().store.countJobs(team.id)).toEqual({ requests: 1, receipts: 0 });
      expect((await h().store.findTeam(ALICE, team.id))?.revision).toBe(before?.revision);
    });

    it('counts team requests and chain members in the snapshot', async () => {
      const { team, members } = await h().team();
      const root = at(await h().send(team, [at(members, 1)]), 0);
      await h().send(team, [at(members, 2)]);
      const seen: EnqueueSnapshot[] = [];
      await h().store.enqueueRequests({
        owner: ALICE,
        teamId: team.id,
        keys: [],
        roots: [root.id, asJobId('job_new')],
        now: h().now(),
        decide: (snapshot) => {
          seen.push(snapshot);
          return { insert: [], resultIds: [] };
        },
      });
      expect(at(seen, 0).requestCount).toBe(2);
      expect(at(seen, 0).chainCounts).toEqual(
        new Map([
          [root.id, 1],
          [asJobId('job_new'), 0],
        ]),
      );
    });

    it('writes nothing when decide throws, and rethrows its error', async () => {
      const { team, members } = await h().team();
      const before = await h().store.findTeam(ALICE, team.id);
      const published = h().published.length;
      await expectCode(
        h().store.enqueueRequests({
          owner: ALICE,
          teamId: team.id,
          keys: [],
          roots: [],
          now: h().now(),
          decide: () => {
            throw new DomainError(ErrorCode.REQUEST_LIMIT, 'full');
          },
        }),
        ErrorCode.REQUEST_LIMIT,
      );
      expect(await h().store.countJobs(team.id)).toEqual({ requests: 0, receipts: 0 });
      expect((await h().store.findTeam(ALICE, team.id))?.revision).toBe(before?.revision);
      expect(h().published.length).toBe(published);
      expect(members.length).toBeGreaterThan(0);
    });

    it("refuses to enqueue into another owner's team", async () => {
      const { team, members } = await h().team();
      await expectCode(h().send(team, [at(members, 0)], { owner: BOB }), ErrorCode.NOT_FOUND);
      expect(await h().store.countJobs(team.id)).toEqual({ requests: 0, receipts: 0 });
    });

    it('cuts the REQUEST record of a long task to 6,000 bytes, keeping the whole text on the job', async () => {
      const { team, members } = await h().team();
      const text = '😀'.repeat(2_000);
      const job = at(await h().send(team, [at(members, 0)], { text }), 0);
      expect(job.text).toBe(text);
      const [record] = await h().store.recentRecords(team.id, 1);
      expect(record?.truncated).toBe(true);
      expect(Buffer.byteLength(record?.text ?? '')).toBeLessThanOrEqual(6_000);
      expect(record?.text).toBe('😀'.repeat(1_500));
    });

    it('persists a step with its record and receipt in one write, and publishes after commit', async () => {
      const { team, members } = await h().team();
      const [asker, worker] = members as [(typeof members)[number], (typeof members)[number]];
      const job = at(await h().send(team, [worker], { from: asker }), 0);
      const seenOnPublish: Promise<Job | null>[] = [];
      h().published.length = 0;
      // What a subscriber reads when told: the committed state, never the state before.
      h().onPublish = () => seenOnPublish.push(h().store.findJob(ALICE, job.id));
      const result = await h().store.updateJob(job.id, h().failWith({ to: asker }), { now: h().now() });
      expect(result.changed).toBe(true);
      expect(result.job).toMatchObject({
        phase: JobPhase.FAILED,
        error: 'boom',
        result: { text: 'boom', truncated: false },
      });
      expect((await Promise.all(seenOnPublish)).map((j) => j?.phase)).toEqual([JobPhase.FAILED]);
      const receipts = (await h().store.listJobs(team.id, { kind: JobKind.RECEIPT }, { first: 10, afterSeq: null }))
        .items;
      expect(receipts).toEqual([
        expect.objectContaining({
          kind: JobKind.RECEIPT,
          phase: JobPhase.QUEUED,
          memberId: asker.id,
          conversationId: asker.conversationId,
          parentId: job.id,
          rootId: job.rootId,
          requester: { memberId: null, conversationId: null },
          text: '{"status":"FAILED"}',
        }),
      ]);
      const records = await h().store.recentRecords(team.id, 10);
      expect(records.map((r) => r.kind)).toEqual([RecordKind.REQUEST, RecordKind.FAILED]);
      const kinds = h().publishedEvents.map((e) => e.kind);
      expect(kinds).toEqual(
        expect.arrayContaining([
          TeamEventKind.JOB_CHANGED,
          TeamEventKind.MEMBER_CHANGED,
          TeamEventKind.RECORD_APPENDED,
        ]),
      );
      expect(await h().store.countJobs(team.id)).toEqual({ requests: 1, receipts: 1 });
    });

    it('refuses a second receipt for one request and rolls back the whole step', async () => {
      const { team, members } = await h().team();
      const [asker, worker] = members as [(typeof members)[number], (typeof members)[number]];
      const job = at(await h().send(team, [worker], { from: asker }), 0);
      await h().store.updateJob(job.id, h().failWith({ to: asker }), { now: h().now() });
      const again = (current: Job): TransitionOutcome =>
        ({ ...h().failWith({ to: asker })(current), job: { ...current, error: 'again' } }) as TransitionOutcome;
      await expect(h().store.updateJob(job.id, again, { now: h().now() })).rejects.toBeDefined();
      expect((await h().store.findJob(ALICE, job.id))?.error).toBe('boom');
      expect(await h().store.countJobs(team.id)).toEqual({ requests: 1, receipts: 1 });
    });

    it('returns the job of every step exactly as a read finds it after the commit', async () => {
      const { store } = h();
      const phases = new Set<JobPhase>();
      const updateJob: TeamStore['updateJob'] = async (...args) => {
        const result = await store.updateJob(...args);
        expect(await store.findJob(ALICE, result.job.id)).toEqual(result.job);
        phases.add(result.job.phase);
        return result;
      };
      // Every other method on the store itself (stores may keep private fields).
      const checked = new Proxy(store, {
        get(target, key) {
          if (key === 'updateJob') return updateJob;
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const { jobs } = await makeJobZoo(checked, { ids: h().ids, now: h().now(), owner: ALICE });
      // Every command of the zoo's paths ran: each phase it builds was returned by some step.
      for (const job of Object.values(jobs)) if (job.phase !== JobPhase.QUEUED) expect(phases).toContain(job.phase);
      expect(phases.size).toBeGreaterThanOrEqual(8);
    });

    it('writes nothing for an unchanged job or a refused step', async () => {
      const { team, members } = await h().team();
      const job = at(await h().send(team, [at(members, 0)]), 0);
      const before = await h().store.findTeam(ALICE, team.id);
      const published = h().published.length;
      const same = await h().store.updateJob(job.id, (current) => ({ ok: true, job: current, effects: [] }), {
        now: h().now(),
      });
      expect(same).toEqual({ job, changed: false });
      const refusal = new DomainError(ErrorCode.INVALID_TRANSITION, 'no');
      await expectCode(
        h().store.updateJob(job.id, () => ({ ok: false, error: refusal }), { now: h().now() }),
        ErrorCode.INVALID_TRANSITION,
      );
      expect(await h().store.findJob(ALICE, job.id)).toEqual(job);
      expect((await h().store.findTeam(ALICE, team.id))?.revision).toBe(before?.revision);
      expect(h().published.length).toBe(published);
    });
  });
}
