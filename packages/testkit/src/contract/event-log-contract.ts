import { describe, expect, it } from 'vitest';
import { ALICE, at, type StoreHarness } from './store-harness.js';

/** Contract cases of `EventLog`: gap-free seqs per team, published after commit, readable after any seq. */
export function describeEventLogCases(h: () => StoreHarness): void {
  describe('event log', () => {
    it('keeps event seqs strictly increasing per team and readable after any seq', async () => {
      const { team, members } = await h().team();
      const job = at(await h().send(team, [at(members, 0), at(members, 1)]), 0);
      await h().store.updateJob(job.id, h().failWith(null), { now: h().now() });
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
