import {
  asAgentId,
  cancelStep,
  ErrorCode,
  isTerminal,
  JobPhase,
  type Member,
  type Team,
  TeamEventKind,
  TeamStatus,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** Contract cases of `TeamLifecycle`: spawn (idempotent, names for good, bounded), retire, close. */
export function describeTeamLifecycleCases(h: () => StoreHarness): void {
  describe('team lifecycle', () => {
    const spawn = (team: Team, name: string, opts: { key?: string; fingerprint?: string; maxActive?: number } = {}) => {
      const { ids } = h();
      return h().store.spawnMember({
        owner: team.owner,
        teamId: team.id,
        member: {
          id: ids.memberId(),
          name,
          agentId: asAgentId('researcher'),
          conversationId: ids.conversationId(),
          role: 'Reviews',
        },
        clientKey: opts.key ?? `spawn-${name}`,
        fingerprint: opts.fingerprint ?? `f-${name}`,
        maxActive: opts.maxActive ?? 8,
        maxEver: 64,
        seed: [{ role: 'USER', text: 'forked turn', toolName: null, jobId: null }],
        now: h().now(),
      });
    };
    const retire = (team: Team, member: Member) => {
      const now = h().now();
      return h().store.retireMember({
        owner: team.owner,
        teamId: team.id,
        memberId: member.id,
        now,
        cancel: cancelStep({ now, ids: h().ids }),
      });
    };
    const close = (team: Team) => {
      const now = h().now();
      return h().store.closeTeam({
        owner: team.owner,
        teamId: team.id,
        now,
        cancel: cancelStep({ now, ids: h().ids }),
      });
    };

    it('spawns a member at the end of the roster, seeds its conversation and emits MEMBER_SPAWNED', async () => {
      const { team } = await h().team({ size: 2 });
      const { member, created } = await spawn(team, 'Cy');
      expect(created).toBe(true);
      expect(member).toMatchObject({ name: 'Cy', position: 2, role: 'Reviews', isLead: false, retiredAt: null });
      expect((await h().store.listMembers([team.id])).map((m) => m.name)).toEqual(['Member 0', 'Member 1', 'Cy']);
      const log = await h().store.listConversation(member.conversationId, { first: 10, afterSeq: null });
      expect(log.items.map((m) => m.text)).toEqual(['forked turn']);
      const kinds = h()
        .publishedEvents.filter((e) => e.memberId === member.id)
        .map((e) => e.kind);
      expect(kinds).toEqual(expect.arrayContaining([TeamEventKind.MEMBER_SPAWNED, TeamEventKind.MEMBER_CHANGED]));
    });

    it('answers a retried spawn with the same member and refuses the key with other content', async () => {
      const { team } = await h().team({ size: 2 });
      const first = await spawn(team, 'Cy');
      const again = await spawn(team, 'Cy');
      expect(again).toEqual({ member: first.member, created: false });
      await expectCode(spawn(team, 'Dee', { key: 'spawn-Cy' }), ErrorCode.IDEMPOTENCY_CONFLICT);
      const log = await h().store.listConversation(first.member.conversationId, { first: 10, afterSeq: null });
      expect(log.items).toHaveLength(1);
    });

    it('keeps names taken for good: a retired member’s name is refused', async () => {
      const { team, members } = await h().team({ size: 3 });
      await retire(team, members[2] as Member);
      await expectCode(spawn(team, 'Member 2'), ErrorCode.DUPLICATE_MEMBER_NAME);
      await expectCode(spawn(team, 'Member 0', { key: 'other' }), ErrorCode.DUPLICATE_MEMBER_NAME);
    });

    it('counts active members only against the limit (n-1 spawns, n refuses, a retirement frees a place)', async () => {
      const { team, members } = await h().team({ size: 2 });
      await spawn(team, 'Cy', { maxActive: 3 });
      await expectCode(spawn(team, 'Dee', { maxActive: 3 }), ErrorCode.MEMBER_COUNT);
      await retire(team, members[0] as Member);
      expect((await spawn(team, 'Dee', { maxActive: 3 })).created).toBe(true);
    });

    it('refuses spawns into a closed team and another owner’s team', async () => {
      const { team } = await h().team({ size: 2 });
      await expectCode(spawn({ ...team, owner: BOB }, 'Cy'), ErrorCode.NOT_FOUND);
      await close(team);
      await expectCode(spawn(team, 'Cy'), ErrorCode.TEAM_CLOSED);
    });

    it('retires a member: stamps retiredAt, cancels its unfinished jobs, leaves others’ jobs alone', async () => {
      const { team, members } = await h().team({ size: 3 });
      const [target, other] = [members[1] as Member, members[2] as Member];
      const [mine] = await h().send(team, [target]);
      const [theirs] = await h().send(team, [other]);
      const { member, cancelled } = await retire(team, target);
      expect(member.retiredAt).not.toBeNull();
      expect(cancelled.map((j) => [j.id, j.phase])).toEqual([[mine?.id, JobPhase.CANCELLED]]);
      const [after] = await h().store.findJobs([theirs?.id as NonNullable<typeof theirs>['id']]);
      expect(after?.phase).toBe(JobPhase.QUEUED);
      expect((await h().store.findMembers([target.id]))[0]?.retiredAt).toBe(member.retiredAt);
      const kinds = h()
        .publishedEvents.filter((e) => e.memberId === target.id)
        .map((e) => e.kind);
      expect(kinds).toContain(TeamEventKind.MEMBER_RETIRED);
      const again = await retire(team, member);
      expect(again).toEqual({ member, cancelled: [] });
    });

    it('retire answers NOT_FOUND for a member of another team or owner', async () => {
      const { team } = await h().team({ size: 2 });
      const { members: strangers } = await h().team({ size: 2 });
      await expectCode(retire(team, strangers[0] as Member), ErrorCode.NOT_FOUND);
      await expectCode(retire({ ...team, owner: BOB }, strangers[0] as Member), ErrorCode.NOT_FOUND);
    });

    it('closes a team: CLOSED, queued and paused work cancelled, active turns left running, TEAM_CLOSED emitted, idempotent', async () => {
      const zoo = await h().zoo();
      const { team, cancelled } = await close(zoo.team);
      expect(team.status).toBe(TeamStatus.CLOSED);
      expect(cancelled.length).toBeGreaterThan(0);
      const jobs = await h().store.findJobs(Object.values(zoo.jobs).map((j) => j.id));
      for (const job of jobs) {
        const before = Object.values(zoo.jobs).find((j) => j.id === job.id);
        // Active turns run on; everything else unfinished ends CANCELLED.
        if (
          before &&
          [JobPhase.QUEUED, JobPhase.WAITING_INPUT, JobPhase.ANSWERED, JobPhase.WAITING_CHANGE].includes(
            before.phase as never,
          )
        ) {
          expect(job.phase).toBe(JobPhase.CANCELLED);
        } else if (before) expect(job.phase).toBe(before.phase);
      }
      expect(h().publishedEvents.map((e) => e.kind)).toContain(TeamEventKind.TEAM_CLOSED);
      expect(await close(zoo.team)).toMatchObject({ cancelled: [] });
      expect(isTerminal(JobPhase.CANCELLED)).toBe(true);
    });

    it('close answers NOT_FOUND for another owner', async () => {
      const { team } = await h().team({ owner: ALICE, size: 2 });
      await expectCode(close({ ...team, owner: BOB }), ErrorCode.NOT_FOUND);
    });
  });
}
