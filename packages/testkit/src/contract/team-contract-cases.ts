import { asAgentId, asMemberId, asTeamId, ErrorCode, TeamEventKind, TeamStatus } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases of team creation, status, scoping and listing. */
export function describeTeamCases(h: () => StoreHarness): void {
  describe('teams', () => {
    const newTeam = (clientRequestId: string, fingerprint = 'f', owner = ALICE) => {
      const { ids } = h();
      return {
        id: ids.teamId(),
        owner,
        clientRequestId,
        fingerprint,
        name: 'Team',
        goal: 'Goal',
        members: ['Ada', 'Bo'].map((name) => ({
          id: ids.memberId(),
          name,
          agentId: asAgentId('researcher'),
          conversationId: ids.conversationId(),
        })),
      };
    };

    it('creates a CREATING team whose members keep roster order', async () => {
      const input = newTeam('c1');
      const { team, created } = await h().store.createTeam(input, { now: h().now(), maxTeams: 20 });
      expect(created).toBe(true);
      expect(team).toMatchObject({ id: input.id, owner: ALICE, status: TeamStatus.CREATING, name: 'Team' });
      expect(await h().store.findTeam(ALICE, input.id)).toEqual(team);
      const members = await h().store.listMembers([input.id]);
      expect(members.map((m) => [m.name, m.position, m.conversationId])).toEqual([
        ['Ada', 0, input.members[0]?.conversationId],
        ['Bo', 1, input.members[1]?.conversationId],
      ]);
      expect(h().publishedEvents.map((e) => e.kind)).toContain(TeamEventKind.TEAM_CHANGED);
    });

    it('answers a retried creation with the existing team and writes nothing', async () => {
      const input = newTeam('c1');
      const first = await h().store.createTeam(input, { now: h().now(), maxTeams: 20 });
      const before = h().publishedEvents.length;
      const retry = await h().store.createTeam({ ...input, id: h().ids.teamId() }, { now: h().now(), maxTeams: 20 });
      expect(retry).toEqual({ team: first.team, created: false });
      expect((await h().store.listTeams(ALICE, { first: 10, afterSeq: null })).items).toHaveLength(1);
      expect(h().publishedEvents).toHaveLength(before);
    });

    it('refuses a reused clientRequestId with other content', async () => {
      await h().store.createTeam(newTeam('c1'), { now: h().now(), maxTeams: 20 });
      await expectCode(
        h().store.createTeam(newTeam('c1', 'other'), { now: h().now(), maxTeams: 20 }),
        ErrorCode.IDEMPOTENCY_CONFLICT,
      );
    });

    it('refuses a team past maxTeams, still answers a retry at the limit, and counts per owner', async () => {
      const kept = newTeam('a');
      await h().store.createTeam(kept, { now: h().now(), maxTeams: 2 });
      await h().store.createTeam(newTeam('b'), { now: h().now(), maxTeams: 2 });
      await expectCode(h().store.createTeam(newTeam('c'), { now: h().now(), maxTeams: 2 }), ErrorCode.TEAM_LIMIT);
      expect((await h().store.createTeam(kept, { now: h().now(), maxTeams: 2 })).created).toBe(false);
      expect((await h().store.createTeam(newTeam('c', 'f', BOB), { now: h().now(), maxTeams: 2 })).created).toBe(true);
      expect((await h().store.listTeams(ALICE, { first: 10, afterSeq: null })).items).toHaveLength(2);
    });

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

    it('sets the status with a revision bump and a TEAM_CHANGED event; the same status writes nothing', async () => {
      const { team } = await h().team({ status: TeamStatus.CREATING });
      const ready = await h().store.setTeamStatus(team.id, TeamStatus.READY, h().now());
      expect(ready.status).toBe(TeamStatus.READY);
      expect(ready.revision).toBeGreaterThan(team.revision);
      const events = await h().store.readEvents(team.id, team.lastEventSeq, 100);
      expect(events.map((e) => e.kind)).toContain(TeamEventKind.TEAM_CHANGED);
      expect(events.every((e) => e.owner === ALICE && e.teamId === team.id)).toBe(true);
      const again = await h().store.setTeamStatus(team.id, TeamStatus.READY, h().now());
      expect(again.revision).toBe(ready.revision);
      expect(again.lastEventSeq).toBe(ready.lastEventSeq);
      await expectCode(
        h().store.setTeamStatus(asTeamId('team_missing'), TeamStatus.READY, h().now()),
        ErrorCode.NOT_FOUND,
      );
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
