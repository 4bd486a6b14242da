import { asMemberId, asTeamId, ErrorCode, TeamStatus } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases of `TeamReads`: owner scoping, keyset lists, loads by id across owners. */
export function describeTeamReadsCases(h: () => StoreHarness): void {
  describe('team reads', () => {
    it("hides another owner's team from its reads and writes", async () => {
      const { team } = await h().team();
      expect(await h().store.findTeam(BOB, team.id)).toBeNull();
      expect((await h().store.listTeams(BOB, { first: 10, afterSeq: null })).items).toEqual([]);
      await expectCode(h().store.deleteTeam(BOB, team.id, h().now()), ErrorCode.NOT_FOUND);
      await expectCode(h().store.deleteTeam(ALICE, asTeamId('team_missing'), h().now()), ErrorCode.NOT_FOUND);
      expect(await h().store.findTeam(ALICE, team.id)).not.toBeNull();
    });

    it("lists the owner's teams newest first in keyset pages", async () => {
      const made = [];
      for (let i = 0; i < 3; i += 1) made.push((await h().team()).team.id);
      await h().team({ owner: BOB });
      const first = await h().store.listTeams(ALICE, { first: 2, afterSeq: null });
      expect(first.items.map((t) => t.id)).toEqual([made[2], made[1]]);
      expect(first.hasNextPage).toBe(true);
      const last = first.items[1]?.seq ?? null;
      const second = await h().store.listTeams(ALICE, { first: 2, afterSeq: last });
      expect(second.items.map((t) => t.id)).toEqual([made[0]]);
      expect(second.hasNextPage).toBe(false);
    });

    it('lists teams by status across owners', async () => {
      const ready = (await h().team()).team;
      const creating = (await h().team({ owner: BOB, status: TeamStatus.CREATING })).team;
      const lost = (await h().team({ status: TeamStatus.DISCONNECTED })).team;
      expect((await h().store.listTeamsByStatus(TeamStatus.CREATING)).map((t) => t.id)).toEqual([creating.id]);
      expect((await h().store.listTeamsByStatus(TeamStatus.READY)).map((t) => t.id)).toEqual([ready.id]);
      expect((await h().store.listTeamsByStatus(TeamStatus.DISCONNECTED)).map((t) => t.id)).toEqual([lost.id]);
    });

    it('loads teams and members by id across owners, skipping missing ids', async () => {
      const a = await h().team();
      const b = await h().team({ owner: BOB });
      const teams = await h().store.findTeams([b.team.id, asTeamId('team_missing'), a.team.id]);
      expect(teams.map((t) => t.id).sort()).toEqual([a.team.id, b.team.id].sort());
      const wanted = [a.members[1], b.members[0]].map((m) => m?.id ?? '');
      const members = await h().store.findMembers([...wanted, 'member_missing'].map(asMemberId));
      expect(members.map((m) => m.id).sort()).toEqual([...wanted].sort());
      expect((await h().store.listMembers([a.team.id, b.team.id])).length).toBe(a.members.length + b.members.length);
    });
  });
}
