import { type Job, JobPhase, RecordKind, type TransitionOutcome } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, type StoreHarness } from './store-harness.js';

/** A decide that fails a job and, like the core, appends its record and (optionally) a receipt. */
function failWith(
  h: StoreHarness,
  receipt: { to: { id: Job['memberId']; conversationId: Job['conversationId'] } } | null,
) {
  return (job: Job): TransitionOutcome => ({
    ok: true,
    job: {
      ...job,
      phase: JobPhase.FAILED,
      error: 'boom',
      result: { text: 'boom', truncated: false },
      finishedAt: h.now(),
    },
    effects: [
      {
        type: 'APPEND_RECORD',
        kind: RecordKind.FAILED,
        memberId: job.memberId,
        fromMemberId: job.memberId,
        text: 'boom',
        truncated: false,
      },
      ...(receipt === null
        ? []
        : [
            {
              type: 'CREATE_RECEIPT' as const,
              receipt: {
                id: h.ids.jobId(),
                memberId: receipt.to.id,
                conversationId: receipt.to.conversationId,
                text: '{"status":"FAILED"}',
              },
            },
          ]),
    ],
  });
}

/** Contract cases of `EventLog`: gap-free seqs per team, published after commit, readable after any seq. */
export function describeEventLogCases(h: () => StoreHarness): void {
  describe('event log', () => {
    it('keeps event seqs strictly increasing per team and readable after any seq', async () => {
      const { team, members } = await h().team();
      const job = at(await h().send(team, [at(members, 0), at(members, 1)]), 0);
      await h().store.updateJob(job.id, failWith(h(), null), { now: h().now() });
      const events = await h().store.readEvents(team.id, 0, 1_000);
      const seqs = events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs.at(-1)).toBe((await h().store.findTeam(ALICE, team.id))?.lastEventSeq);
      const published = h().publishedEvents.filter((e) => e.teamId === team.id);
      expect(published).toEqual(events);
      expect(await h().store.readEvents(team.id, seqs[1] as number, 2)).toEqual(events.slice(2, 4));
    });
  });
}
