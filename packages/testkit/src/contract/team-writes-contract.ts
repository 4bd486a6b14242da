import {
  asAgentId,
  asTeamId,
  ErrorCode,
  type Job,
  JobPhase,
  TeamEventKind,
  TeamStatus,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases of `TeamWrites`: creation (idempotent, bounded), status, deletion, revisions. */
export function describeTeamWritesCases(h: () => StoreHarness): void {
  const zoo = () => h().zoo();
  describe('team writes', () => {
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

    it('keeps each member role and lead flag (absent: no role, no lead); a new member is not retired', async () => {
      const input = newTeam('roles');
      const members = input.members.map((m, i) => (i === 0 ? { ...m, role: 'Leads 研究 😀', isLead: true } : m));
      await h().store.createTeam({ ...input, members }, { now: h().now(), maxTeams: 20 });
      const stored = await h().store.listMembers([input.id]);
      expect(stored.map((m) => [m.name, m.role, m.isLead, m.retiredAt])).toEqual([
        ['Ada', 'Leads 研究 😀', true, null],
        ['Bo', null, false, null],
      ]);
      expect(await h().store.findMembers(stored.map((m) => m.id))).toEqual(stored);
    });

    it('stores the CLOSED status and reads it back', async () => {
      const { team } = await h().team();
      const closed = await h().store.setTeamStatus(team.id, TeamStatus.CLOSED, h().now());
      expect(closed.status).toBe(TeamStatus.CLOSED);
      expect((await h().store.findTeam(ALICE, team.id))?.status).toBe(TeamStatus.CLOSED);
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

    it('refuses to delete a team with unfinished work and deletes nothing', async () => {
      const { team, jobs } = await zoo();
      await expectCode(h().store.deleteTeam(ALICE, team.id, h().now()), ErrorCode.PENDING_WORK);
      expect(await h().store.findJob(ALICE, jobs.COMPLETED.id)).toEqual(jobs.COMPLETED);
      expect(await h().store.findTeam(ALICE, team.id)).not.toBeNull();
    });

    it('deletes a finished team with its members, jobs, record and events, keeping conversations and other teams', async () => {
      const other = await zoo();
      const { team, members } = await h().team();
      const [job] = await h().send(team, [at(members, 0)]);
      await h().store.updateJob(
        (job as Job).id,
        (j) => transition(j, { type: 'CANCEL' }, { now: h().now(), ids: h().ids }),
        { now: h().now() },
      );
      const conversation = at(members, 0).conversationId;
      await h().store.appendConversation(
        conversation,
        [{ role: 'USER', text: 'hi', toolName: null, jobId: null }],
        h().now(),
      );
      const lastSeq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq ?? 0;
      await h().store.deleteTeam(ALICE, team.id, h().now());
      expect(await h().store.findTeam(ALICE, team.id)).toBeNull();
      expect(await h().store.findJob(ALICE, (job as Job).id)).toBeNull();
      expect(await h().store.listMembers([team.id])).toEqual([]);
      expect(await h().store.recentRecords(team.id, 10)).toEqual([]);
      expect(await h().store.readEvents(team.id, 0, 10)).toEqual([]);
      expect((await h().store.listConversation(conversation, { first: 10, afterSeq: null })).items).toHaveLength(1);
      expect(h().publishedEvents.at(-1)).toMatchObject({ teamId: team.id, kind: 'TEAM_CHANGED', seq: lastSeq + 1 });
      expect(await h().store.findJob(ALICE, other.jobs.COMPLETED.id)).toEqual(other.jobs.COMPLETED);
      expect((await h().store.listActiveJobs()).length).toBe(4);
    });
  });
}
