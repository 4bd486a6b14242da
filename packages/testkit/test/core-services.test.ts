import { asOwnerId, ErrorCode, Limits, TeamStatus } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { alice, bob, expectCode, harness, limitSamples, readyTeam, sendOne, teamInput } from './core-harness.js';

describe('teams.create', () => {
  it('creates a READY team whose members keep roster order and get their conversations ensured', async () => {
    const h = harness();
    const { team, members } = await readyTeam(h);
    expect(team).toMatchObject({ owner: alice, name: 'Alpha', status: TeamStatus.READY, clientRequestId: 'create-1' });
    expect(team.id).toMatch(/^team_\d+$/);
    expect(members.map((m) => [m.position, m.name, m.agentId])).toEqual([
      [0, 'Scout', 'researcher'],
      [1, 'Critic', 'reviewer'],
    ]);
    expect(h.runtime.ensured).toEqual(
      members.map((m) => ({ conversationId: m.conversationId, title: `Alpha · ${m.name}` })),
    );
  });

  it('stores trimmed text', async () => {
    const h = harness();
    const input = teamInput({
      name: '  Alpha  ',
      goal: '\tGoal\n',
      members: [
        { name: ' Scout ', agentId: 'researcher' },
        { name: 'Critic', agentId: 'reviewer' },
      ],
    });
    const team = await h.core.teams.create(alice, input);
    const members = await h.core.teams.members([team.id]);
    expect([team.name, team.goal, members[0]?.name]).toEqual(['Alpha', 'Goal', 'Scout']);
  });

  it('returns the same team for an idempotent retry without creating another', async () => {
    const h = harness();
    const first = await h.core.teams.create(alice, teamInput());
    const again = await h.core.teams.create(alice, teamInput());
    expect(again.id).toBe(first.id);
    expect((await h.core.teams.list(alice, {})).edges).toHaveLength(1);
  });

  it('refuses the same clientRequestId with other content', async () => {
    const h = harness();
    await h.core.teams.create(alice, teamInput());
    await expectCode(
      () => h.core.teams.create(alice, teamInput({ goal: 'Another goal' })),
      ErrorCode.IDEMPOTENCY_CONFLICT,
    );
  });

  it('lets two owners use the same clientRequestId independently', async () => {
    const h = harness();
    const a = await h.core.teams.create(alice, teamInput());
    const b = await h.core.teams.create(bob, teamInput({ name: 'Bravo' }));
    expect(b.id).not.toBe(a.id);
  });

  it('refuses the 21st team with TEAM_LIMIT and changes nothing, but still answers a retry', async () => {
    const h = harness();
    for (let i = 1; i <= Limits.teamsPerOwner; i += 1) {
      await h.core.teams.create(alice, teamInput({ clientRequestId: `c${i}`, name: `Team ${i}` }));
    }
    const before = await h.core.teams.list(alice, { first: 100 });
    await expectCode(() => h.core.teams.create(alice, teamInput({ clientRequestId: 'c21' })), ErrorCode.TEAM_LIMIT);
    const after = await h.core.teams.list(alice, { first: 100 });
    expect(after).toEqual(before);
    expect(after.edges).toHaveLength(Limits.teamsPerOwner);
    const retry = await h.core.teams.create(alice, teamInput({ clientRequestId: 'c20', name: 'Team 20' }));
    expect(retry.id).toBe(before.edges[0]?.node.id);
  });

  it.each([1, 9])('refuses %i members with MEMBER_COUNT', async (count) => {
    const h = harness();
    const members = Array.from({ length: count }, (_, i) => ({ name: `M${i}`, agentId: 'writer' }));
    const details = await expectCode(() => h.core.teams.create(alice, teamInput({ members })), ErrorCode.MEMBER_COUNT);
    expect(details).toEqual({ min: 2, max: 8, actual: count });
    expect((await h.core.teams.list(alice, {})).edges).toHaveLength(0);
  });

  it.each([2, 8])('accepts %i members', async (count) => {
    const h = harness();
    const members = Array.from({ length: count }, (_, i) => ({ name: `M${i}`, agentId: 'writer' }));
    const team = await h.core.teams.create(alice, teamInput({ members }));
    expect(await h.core.teams.members([team.id])).toHaveLength(count);
  });

  it('refuses member names that are equal after trimming', async () => {
    const h = harness();
    const members = [
      { name: 'Scout', agentId: 'researcher' },
      { name: ' Scout  ', agentId: 'writer' },
    ];
    const details = await expectCode(
      () => h.core.teams.create(alice, teamInput({ members })),
      ErrorCode.DUPLICATE_MEMBER_NAME,
    );
    expect(details.field).toBe('members[1].name');
  });

  it('refuses an agent missing from the catalog with NOT_FOUND naming the member field', async () => {
    const h = harness();
    const members = [
      { name: 'Scout', agentId: 'researcher' },
      { name: 'Ghost', agentId: 'nobody' },
    ];
    const details = await expectCode(() => h.core.teams.create(alice, teamInput({ members })), ErrorCode.NOT_FOUND);
    expect(details.field).toBe('members[1].agentId');
    expect((await h.core.teams.list(alice, {})).edges).toHaveLength(0);
  });

  it('propagates CATALOG_UNAVAILABLE and creates nothing', async () => {
    const h = harness();
    h.catalog.setAvailable(false);
    await expectCode(() => h.core.teams.create(alice, teamInput()), ErrorCode.CATALOG_UNAVAILABLE);
    expect((await h.core.teams.list(alice, {})).edges).toHaveLength(0);
  });

  it('leaves the team CREATING and logs when a conversation cannot be ensured; a retry completes it', async () => {
    const h = harness();
    h.runtime.failEnsure = true;
    const creating = await h.core.teams.create(alice, teamInput());
    expect(creating.status).toBe(TeamStatus.CREATING);
    expect(h.logger.at('error')).toHaveLength(1);
    h.runtime.failEnsure = false;
    const retried = await h.core.teams.create(alice, teamInput());
    expect(retried).toMatchObject({ id: creating.id, status: TeamStatus.READY });
  });

  describe.each([
    { field: 'name', limit: Limits.teamName, input: (v: string) => teamInput({ name: v }) },
    { field: 'goal', limit: Limits.goal, input: (v: string) => teamInput({ goal: v }) },
    {
      field: 'members[0].name',
      limit: Limits.memberName,
      input: (v: string) =>
        teamInput({
          members: [
            { name: v, agentId: 'writer' },
            { name: 'Other', agentId: 'writer' },
          ],
        }),
    },
    {
      field: 'members[1].role',
      limit: Limits.memberRole,
      input: (v: string) =>
        teamInput({
          members: [
            { name: 'Lead', agentId: 'writer', lead: true },
            { name: 'Other', agentId: 'writer', role: v },
          ],
        }),
    },
    {
      field: 'clientRequestId',
      limit: Limits.clientRequestId,
      input: (v: string) => teamInput({ clientRequestId: v }),
    },
  ])('the $field length rule', ({ field, limit, input }) => {
    it.each(limitSamples(limit))('$label: accepted = $ok', async ({ value, ok }) => {
      const h = harness();
      if (ok) {
        const team = await h.core.teams.create(alice, input(value));
        expect(team.status).toBe(TeamStatus.READY);
      } else {
        const details = await expectCode(() => h.core.teams.create(alice, input(value)), ErrorCode.INVALID_INPUT);
        expect(details).toEqual({ field, maxChars: limit.maxChars, maxBytes: limit.maxBytes });
        expect((await h.core.teams.list(alice, {})).edges).toHaveLength(0);
      }
    });

    it('refuses a lone surrogate and a blank value', async () => {
      const h = harness();
      for (const value of ['ab\uD800', '\uDC00x', '   ']) {
        const details = await expectCode(() => h.core.teams.create(alice, input(value)), ErrorCode.INVALID_INPUT);
        expect(details.field).toBe(field);
      }
    });
  });
});

describe('teams.list, get, delete and reconnect', () => {
  it('lists the owner’s teams newest first, page by page', async () => {
    const h = harness();
    for (const name of ['One', 'Two', 'Three']) await readyTeam(h, alice, { clientRequestId: name, name });
    const first = await h.core.teams.list(alice, { first: 2 });
    expect(first.edges.map((e) => e.node.name)).toEqual(['Three', 'Two']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await h.core.teams.list(alice, { first: 2, after: first.pageInfo.endCursor });
    expect(second.edges.map((e) => e.node.name)).toEqual(['One']);
    expect(second.pageInfo).toEqual({ hasNextPage: false, endCursor: second.edges[0]?.cursor });
  });

  it.each([0, 101, 1.5])('refuses first = %s', async (first) => {
    const h = harness();
    const details = await expectCode(() => h.core.teams.list(alice, { first }), ErrorCode.INVALID_INPUT);
    expect(details.field).toBe('first');
  });

  it('refuses a cursor minted for another list', async () => {
    const h = harness();
    const agents = await h.core.agents.search({ first: 1 });
    const details = await expectCode(
      () => h.core.teams.list(alice, { after: agents.pageInfo.endCursor }),
      ErrorCode.INVALID_INPUT,
    );
    expect(details.field).toBe('after');
  });

  it('deletes a team without pending work and refuses one with PENDING_WORK', async () => {
    const h = harness();
    const { team, members } = await readyTeam(h);
    const job = await sendOne(h, team.id, members[0]?.id ?? '', 'Find sources');
    await expectCode(() => h.core.teams.delete(alice, team.id), ErrorCode.PENDING_WORK);
    expect(await h.core.teams.get(alice, team.id)).not.toBeNull();
    await h.core.jobs.cancel(alice, job.id);
    expect(await h.core.teams.delete(alice, team.id)).toBe(team.id);
    expect(await h.core.teams.get(alice, team.id)).toBeNull();
    await expectCode(() => h.core.teams.delete(alice, team.id), ErrorCode.NOT_FOUND);
  });

  it('reconnects a team: ensures conversations again and marks it READY', async () => {
    const h = harness();
    h.runtime.failEnsure = true;
    const creating = await h.core.teams.create(alice, teamInput());
    const failedAgain = await h.core.teams.reconnect(alice, creating.id);
    expect(failedAgain.status).toBe(TeamStatus.CREATING);
    h.runtime.failEnsure = false;
    const ready = await h.core.teams.reconnect(alice, creating.id);
    expect(ready.status).toBe(TeamStatus.READY);
    expect(h.runtime.ensured).toHaveLength(2);
    await expectCode(() => h.core.teams.reconnect(alice, 'team_999'), ErrorCode.NOT_FOUND);
  });
});

describe('owner isolation', () => {
  it('shows bob nothing of alice’s teams, jobs or mention targets', async () => {
    const h = harness();
    const { team, members } = await readyTeam(h);
    const job = await sendOne(h, team.id, members[0]?.id ?? '', 'Find sources');
    const jobId = job.id;
    expect(await h.core.teams.get(bob, team.id)).toBeNull();
    expect((await h.core.teams.list(bob, {})).edges).toEqual([]);
    expect(await h.core.jobs.get(bob, jobId)).toBeNull();
    expect(await h.core.mentions.search(bob, '')).toEqual([]);
    expect((await h.core.jobs.inbox(bob, {})).totalCount).toBe(0);
    const send = { teamId: team.id, memberIds: [members[0]?.id ?? ''], text: 'Mine now', clientRequestId: 'b1' };
    await expectCode(() => h.core.requests.send(bob, send), ErrorCode.NOT_FOUND);
    await expectCode(() => h.core.jobs.cancel(bob, jobId), ErrorCode.NOT_FOUND);
    await expectCode(() => h.core.teams.delete(bob, team.id), ErrorCode.NOT_FOUND);
    await expectCode(() => h.core.teams.reconnect(bob, team.id), ErrorCode.NOT_FOUND);
    expect((await h.core.jobs.get(alice, jobId))?.phase).toBe('QUEUED');
    expect(await h.core.teams.get(asOwnerId('alice'), team.id)).not.toBeNull();
  });
});
