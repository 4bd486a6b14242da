import { BROADCAST_KEY_PREFIX, JobKind, JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { at, type StoreHarness } from './store-harness.js';

/** Contract cases of a broadcast's one receipt, written by the step that finishes its last request. */
export function describeBroadcastCases(h: () => StoreHarness): void {
  describe('broadcast receipt', () => {
    it('adds exactly one BROADCAST_RECEIPT, to the broadcaster, when the last request finishes', async () => {
      const { team, members } = await h().team();
      const [lead, a, b] = [at(members, 0), at(members, 1), at(members, 2)];
      const requests = await h().send(team, [a, b], { from: lead, clientKey: `${BROADCAST_KEY_PREFIX}b1` });
      const receipts = async () =>
        (await h().store.listJobs(team.id, { kind: JobKind.BROADCAST_RECEIPT }, { first: 10, afterSeq: null })).items;
      await h().store.updateJob(at(requests, 0).id, h().failWith(null), { now: h().now() });
      expect(await receipts()).toEqual([]);
      await h().store.updateJob(at(requests, 1).id, h().failWith(null), { now: h().now() });
      const [receipt, ...more] = await receipts();
      expect(more).toEqual([]);
      expect(receipt).toMatchObject({
        kind: JobKind.BROADCAST_RECEIPT,
        phase: JobPhase.QUEUED,
        memberId: lead.id,
        conversationId: lead.conversationId,
        rootId: at(requests, 0).rootId,
      });
      expect(receipt?.text).toBe(
        `### ${a.name} (no role)\nstatus: FAILED\nboom\n\n### ${b.name} (no role)\nstatus: FAILED\nboom`,
      );
      // A broadcast request gets no receipt of its own.
      expect(
        (await h().store.listJobs(team.id, { kind: JobKind.RECEIPT }, { first: 10, afterSeq: null })).items,
      ).toEqual([]);
      expect(h().publishedEvents.at(-1)).toMatchObject({ kind: 'MEMBER_CHANGED', memberId: lead.id });
    });
  });
}
