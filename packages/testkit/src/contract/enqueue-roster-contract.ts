import { cancelStep, type EnqueueSnapshot, ErrorCode, type Member, type Team } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Enqueues nothing to `target`, returning what `decide` saw (an enqueue that only looks). */
async function snapshotOf(
  h: StoreHarness,
  team: Team,
  target: Member,
  withMembers: boolean | undefined,
  owner = ALICE,
): Promise<EnqueueSnapshot> {
  const seen: EnqueueSnapshot[] = [];
  await h.store.enqueueRequests({
    owner,
    teamId: team.id,
    keys: [{ requesterConversationId: null, clientKey: 'look', memberId: target.id }],
    roots: [],
    now: h.now(),
    ...(withMembers === undefined ? {} : { withMembers }),
    decide: (snapshot) => {
      seen.push(snapshot);
      return { insert: [], resultIds: [] };
    },
  });
  return at(seen, 0);
}

/**
 * Contract cases of `JobWrites.enqueueRequests` with `withMembers`: the roster a send checks its
 * recipients against, read under the enqueue's team lock.
 */
export function describeEnqueueRosterCases(h: () => StoreHarness): void {
  describe('enqueue with the roster', () => {
    it('shows decide the team’s members in roster order only when asked', async () => {
      const { team, members } = await h().team({ size: 3 });
      const asked = await snapshotOf(h(), team, at(members, 0), true);
      expect(asked.members?.map((m) => [m.id, m.conversationId, m.retiredAt])).toEqual(
        members.map((m) => [m.id, m.conversationId, null]),
      );
      expect(asked.members).toEqual(members);
      expect((await snapshotOf(h(), team, at(members, 0), false)).members).toBeUndefined();
      expect((await snapshotOf(h(), team, at(members, 0), undefined)).members).toBeUndefined();
    });

    it('shows a retired member as retired, still in the roster', async () => {
      const { team, members } = await h().team({ size: 3 });
      const now = h().now();
      const cancel = cancelStep({ now, ids: h().ids });
      await h().store.retireMember({ owner: ALICE, teamId: team.id, memberId: at(members, 1).id, now, cancel });
      const snapshot = await snapshotOf(h(), team, at(members, 0), true);
      expect(snapshot.members?.map((m) => [m.id, m.retiredAt !== null])).toEqual([
        [at(members, 0).id, false],
        [at(members, 1).id, true],
        [at(members, 2).id, false],
      ]);
    });

    it('reads only the locked team’s roster, and refuses another owner’s team before decide', async () => {
      const first = await h().team({ size: 2 });
      const second = await h().team({ size: 3 });
      const snapshot = await snapshotOf(h(), second.team, at(second.members, 0), true);
      expect(snapshot.members?.map((m) => m.id)).toEqual(second.members.map((m) => m.id));
      expect(snapshot.members?.some((m) => first.members.some((f) => f.id === m.id))).toBe(false);
      await expectCode(snapshotOf(h(), first.team, at(first.members, 0), true, BOB), ErrorCode.NOT_FOUND);
    });
  });
}
