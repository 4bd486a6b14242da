import {
  asRecordId,
  foldSearchText,
  type Job,
  JobPhase,
  Limits,
  RecordKind,
  type TeamReadFilter,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { at, BOB, type StoreHarness } from './store-harness.js';

const NONE: TeamReadFilter = { memberId: null, jobId: null, query: null };

/** Contract cases of `RecordReads`: retention, loads by id, and the member read tools' pages. */
export function describeRecordReadsCases(h: () => StoreHarness): void {
  describe('record reads', () => {
    const finish = async (job: Job, type: 'CANCEL') => {
      const now = h().now();
      await h().store.updateJob(job.id, (j) => transition(j, { type }, { now, ids: h().ids }), { now });
    };

    it(`keeps only the newest ${Limits.recordRetained} record messages of a team`, async () => {
      const { team, members } = await h().team();
      const other = await h().team();
      await h().send(other.team, [at(other.members, 0)]);
      const jobs: Job[] = [];
      for (let i = 0; i < Limits.recordRetained + 5; i += 1) jobs.push(...(await h().send(team, [at(members, i % 3)])));
      const records = await h().store.recentRecords(team.id, 1_000);
      expect(records).toHaveLength(Limits.recordRetained);
      expect(records.map((r) => r.jobId)).toEqual(jobs.slice(5).map((j) => j.id));
      const seqs = records.map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(await h().store.recentRecords(other.team.id, 10)).toHaveLength(1);
      const newest = await h().store.recentRecords(team.id, 2);
      expect(newest.map((r) => r.jobId)).toEqual(jobs.slice(-2).map((j) => j.id));
    });

    it(`trims at exactly ${Limits.recordRetained} messages: n - 1, n and n + 1 appends`, async () => {
      const { team, members } = await h().team();
      const jobs: Job[] = [];
      for (let i = 0; i < Limits.recordRetained - 1; i += 1) jobs.push(...(await h().send(team, [at(members, 0)])));
      const count = async () => (await h().store.recentRecords(team.id, 1_000)).map((r) => r.jobId);
      expect(await count()).toEqual(jobs.map((j) => j.id));
      jobs.push(...(await h().send(team, [at(members, 1)])));
      expect(await count()).toEqual(jobs.map((j) => j.id));
      jobs.push(...(await h().send(team, [at(members, 2)])));
      expect(await count()).toEqual(jobs.slice(1).map((j) => j.id));
    });

    it('loads record messages by id, skipping missing ones', async () => {
      const { team, members } = await h().team();
      await h().send(team, [at(members, 0), at(members, 1)]);
      const records = await h().store.recentRecords(team.id, 10);
      const found = await h().store.findRecords([at(records, 1).id, asRecordId('record_missing')]);
      expect(found).toEqual([at(records, 1)]);
      expect(at(records, 0)).toMatchObject({ kind: RecordKind.REQUEST, teamId: team.id });
    });

    it('pages the retained record newest first with filters applied before paging', async () => {
      const { team, members } = await h().team();
      const other = await h().team();
      await h().send(other.team, [at(other.members, 0)], { text: 'Alpha elsewhere' });
      const a = at(await h().send(team, [at(members, 0)], { text: 'Alpha ÄÖ report' }), 0);
      await h().send(team, [at(members, 1)], { text: 'beta', from: at(members, 0) });
      const c = at(await h().send(team, [at(members, 2)], { text: 'ALPHA 100% _x_' }), 0);
      const all = await h().store.pageRecords(team.id, NONE, { limit: 2, beforeSeq: null });
      expect(all.items.map((r) => r.text)).toEqual(['ALPHA 100% _x_', 'beta']);
      expect(all).toMatchObject({ hasMore: true, anchorFound: true });
      const rest = await h().store.pageRecords(team.id, NONE, { limit: 2, beforeSeq: at(all.items, 1).seq });
      expect(rest.items.map((r) => r.jobId)).toEqual([a.id]);
      expect(rest.hasMore).toBe(false);
      const query = (q: string) =>
        h().store.pageRecords(team.id, { ...NONE, query: foldSearchText(q) }, { limit: 10, beforeSeq: null });
      expect((await query('alpha')).items.map((r) => r.jobId)).toEqual([c.id, a.id]);
      expect((await query('äö')).items.map((r) => r.jobId)).toEqual([a.id]);
      // Literal: `%` and `_` are plain characters, never wildcards.
      expect((await query('100% _x')).items.map((r) => r.jobId)).toEqual([c.id]);
      expect((await query('%')).items.map((r) => r.jobId)).toEqual([c.id]);
      const byMember = await h().store.pageRecords(
        team.id,
        { ...NONE, memberId: at(members, 0).id },
        { limit: 10, beforeSeq: null },
      );
      // About member 0 (the request to it) or sent by it (the handoff to member 1).
      expect(byMember.items.map((r) => r.text)).toEqual(['beta', 'Alpha ÄÖ report']);
      const byJob = await h().store.pageRecords(team.id, { ...NONE, jobId: c.id }, { limit: 10, beforeSeq: null });
      expect(byJob.items).toEqual([expect.objectContaining({ kind: RecordKind.REQUEST, jobId: c.id })]);
    });

    it('reports an anchor that left the retained record', async () => {
      const { team, members } = await h().team();
      await h().send(team, [at(members, 0)]);
      const [first] = (await h().store.pageRecords(team.id, NONE, { limit: 1, beforeSeq: null })).items;
      for (let i = 0; i < Limits.recordRetained; i += 1) await h().send(team, [at(members, 1)]);
      const page = await h().store.pageRecords(team.id, NONE, { limit: 5, beforeSeq: first?.seq ?? -1 });
      expect(page).toEqual({ items: [], hasMore: false, anchorFound: false });
      const other = await h().team();
      const foreign = await h().store.pageRecords(other.team.id, NONE, { limit: 5, beforeSeq: first?.seq ?? -1 });
      expect(foreign.anchorFound).toBe(false);
    });

    it('searches finished requests only, newest first, over task text and stored answer', async () => {
      const { team, members } = await h().team();
      const [open] = await h().send(team, [at(members, 0)], { text: 'needle open' });
      const [done] = await h().send(team, [at(members, 1)], { text: 'Needle cancelled' });
      const [plain] = await h().send(team, [at(members, 2)], { text: 'hay' });
      await finish(done as Job, 'CANCEL');
      await finish(plain as Job, 'CANCEL');
      const search = (filter: Partial<TeamReadFilter>, limit = 10) =>
        h().store.searchResults(team.id, { ...NONE, ...filter }, { limit, beforeSeq: null });
      expect((await search({})).items.map((j) => j.id)).toEqual([plain?.id, done?.id]);
      expect((await search({ query: foldSearchText('NEEDLE') })).items.map((j) => j.id)).toEqual([done?.id]);
      // The stored answer matches too (a cancelled job's notice is its stored text).
      expect((await search({ query: foldSearchText('cancelled before') })).items).toHaveLength(2);
      expect((await search({ memberId: at(members, 2).id })).items.map((j) => j.id)).toEqual([plain?.id]);
      expect((await search({ jobId: (done as Job).id })).items.map((j) => j.id)).toEqual([done?.id]);
      const first = await search({}, 1);
      expect(first).toMatchObject({ hasMore: true, anchorFound: true });
      const next = await h().store.searchResults(team.id, NONE, { limit: 1, beforeSeq: at(first.items, 0).seq });
      expect(next.items.map((j) => j.id)).toEqual([done?.id]);
      expect(next.items.every((j) => j.phase === JobPhase.CANCELLED && j.kind === 'REQUEST')).toBe(true);
      expect(open?.phase).toBe(JobPhase.QUEUED);
      const bobs = await h().team({ owner: BOB });
      expect((await h().store.searchResults(bobs.team.id, NONE, { limit: 10, beforeSeq: null })).items).toEqual([]);
    });
  });
}
