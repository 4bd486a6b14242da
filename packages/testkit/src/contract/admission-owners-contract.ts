import { type AdmissionSnapshot, headsPerOwner } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, type StoreHarness } from './store-harness.js';

/** Contract cases of `Admission` for per-owner rules: active jobs counted per owner, the configured capacity. */
export function describeAdmissionOwnerCases(h: () => StoreHarness): void {
  /** A plan that admits every candidate it sees, recording the snapshot. */
  const greedy = (seen: AdmissionSnapshot[]) => (snapshot: AdmissionSnapshot) => {
    seen.push(snapshot);
    return { admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round };
  };
  /** A plan that admits nothing, recording the snapshot. */
  const nothing = (seen: AdmissionSnapshot[]) => (snapshot: AdmissionSnapshot) => {
    seen.push(snapshot);
    return { admit: [], round: snapshot.round };
  };

  describe('admission per owner', () => {
    it('counts the active jobs of each owner in the snapshot', async () => {
      await h().zoo();
      const other = await h().team({ owner: BOB });
      await h().send(other.team, [at(other.members, 0), at(other.members, 1)]);
      const now = h().now();
      await h().store.admit({ now, plan: greedy([]), freeze: (ctx) => h().freeze(ctx, now) });
      // One job still waiting, so the next pass plans (an idle store may skip planning).
      const more = await h().team({ owner: BOB });
      await h().send(more.team, [at(more.members, 0)]);
      const seen: AdmissionSnapshot[] = [];
      await h().store.admit({ now: h().now(), plan: greedy(seen), freeze: (ctx) => h().freeze(ctx, now) });
      // The zoo's four active jobs and its two admitted heads are Alice's; Bob's two are admitted.
      expect(at(seen, 0).activeByOwner).toEqual(
        new Map([
          [ALICE, 6],
          [BOB, 2],
        ]),
      );
      expect(at(seen, 0).active).toBe(8);
      expect(at(seen, 0).candidates).toHaveLength(1);
    });

    it('offers each owner its oldest heads, one more than the free slots (headsPerOwner), in queue order', async () => {
      const alice = await h().team({ size: 5 });
      const bob = await h().team({ owner: BOB, size: 2 });
      const sent = [
        ...(await h().send(alice.team, alice.members.slice(0, 2))),
        ...(await h().send(bob.team, bob.members)),
        ...(await h().send(alice.team, alice.members.slice(2))),
      ];
      const seen: AdmissionSnapshot[] = [];
      const now = h().now();
      // Two free slots: three heads each at most; Alice has five, Bob two.
      await h().store.admit({ now, capacity: 2, plan: nothing(seen), freeze: (ctx) => h().freeze(ctx, now) });
      const offered = [...at(seen, 0).candidates].sort((a, b) => a.seq - b.seq).map((c) => c.jobId);
      expect(headsPerOwner(2, 0)).toBe(3);
      expect(offered).toEqual([at(sent, 0), at(sent, 1), at(sent, 2), at(sent, 3), at(sent, 4)].map((job) => job.id));
      // Every slot taken: one head each still tells the planner who has work.
      await h().store.admit({ now, capacity: 2, plan: greedy([]), freeze: (ctx) => h().freeze(ctx, now) });
      const full: AdmissionSnapshot[] = [];
      await h().store.admit({
        now: h().now(),
        capacity: 2,
        plan: nothing(full),
        freeze: (ctx) => h().freeze(ctx, now),
      });
      expect(at(full, 0).active).toBe(2);
      expect(
        at(full, 0)
          .candidates.map((c) => c.owner)
          .sort(),
      ).toEqual([ALICE, BOB].sort());
    });

    it('offers the configured capacity and never admits past it, whatever the plan says', async () => {
      const { team, members } = await h().team();
      await h().send(team, members);
      const seen: AdmissionSnapshot[] = [];
      const now = h().now();
      const admitted = await h().store.admit({
        now,
        capacity: 1,
        plan: greedy(seen),
        freeze: (ctx) => h().freeze(ctx, now),
      });
      expect(at(seen, 0).capacity).toBe(1);
      expect(at(seen, 0).candidates.length).toBeGreaterThan(1);
      expect(admitted).toHaveLength(1);
      const again = await h().store.admit({
        now: h().now(),
        capacity: 1,
        plan: greedy([]),
        freeze: (ctx) => h().freeze(ctx, now),
      });
      expect(again).toEqual([]);
    });
  });
}
