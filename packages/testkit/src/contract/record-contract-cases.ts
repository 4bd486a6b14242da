import { asConversationId, asRecordId, type Job, JobPhase, Limits, RecordKind, transition } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, type StoreHarness } from './store-harness.js';

/** Contract cases of the shared record, revisions and member conversations. */
export function describeRecordCases(h: () => StoreHarness): void {
  describe('record, revision and conversations', () => {
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

    it('loads record messages by id, skipping missing ones', async () => {
      const { team, members } = await h().team();
      await h().send(team, [at(members, 0), at(members, 1)]);
      const records = await h().store.recentRecords(team.id, 10);
      const found = await h().store.findRecords([at(records, 1).id, asRecordId('record_missing')]);
      expect(found).toEqual([at(records, 1)]);
      expect(at(records, 0)).toMatchObject({ kind: RecordKind.REQUEST, teamId: team.id });
    });

    it('bumps the revision with every visible write', async () => {
      const { team, members } = await h().team();
      const revisions = [team.revision];
      const revision = async () => (await h().store.findTeam(ALICE, team.id))?.revision ?? -1;
      const [job] = await h().send(team, [at(members, 0)]);
      revisions.push(await revision());
      const now = h().now();
      await h().store.updateJob((job as Job).id, (j) => transition(j, { type: 'CANCEL' }, { now, ids: h().ids }), {
        now,
      });
      revisions.push(await revision());
      for (let i = 1; i < revisions.length; i += 1) expect(at(revisions, i)).toBeGreaterThan(at(revisions, i - 1));
      expect((await h().store.findJob(ALICE, (job as Job).id))?.phase).toBe(JobPhase.CANCELLED);
    });

    it('appends conversation messages and pages them oldest first', async () => {
      const conversation = asConversationId('conversation_a');
      const other = asConversationId('conversation_b');
      const texts = ['one', 'two', 'three', 'four', 'five'];
      await h().store.appendConversation(
        conversation,
        texts.slice(0, 3).map((text) => ({ role: 'USER' as const, text, toolName: null, jobId: null })),
        h().now(),
      );
      await h().store.appendConversation(
        other,
        [{ role: 'ASSISTANT', text: 'elsewhere', toolName: null, jobId: null }],
        h().now(),
      );
      await h().store.appendConversation(
        conversation,
        [
          { role: 'TOOL', text: 'four', toolName: 'send_member', jobId: null },
          { role: 'ASSISTANT', text: 'five', toolName: null, jobId: null },
        ],
        h().now(),
      );
      const first = await h().store.listConversation(conversation, { first: 2, afterSeq: null });
      expect(first.items.map((m) => m.text)).toEqual(['one', 'two']);
      expect(first.hasNextPage).toBe(true);
      const rest = await h().store.listConversation(conversation, { first: 10, afterSeq: at(first.items, 1).seq });
      expect(rest.items.map((m) => m.text)).toEqual(['three', 'four', 'five']);
      expect(rest.hasNextPage).toBe(false);
      expect(at(rest.items, 1)).toMatchObject({ role: 'TOOL', toolName: 'send_member', conversationId: conversation });
      expect(new Set([...first.items, ...rest.items].map((m) => m.id)).size).toBe(5);
      expect((await h().store.listConversation(other, { first: 10, afterSeq: null })).items.map((m) => m.text)).toEqual(
        ['elsewhere'],
      );
    });
  });
}
