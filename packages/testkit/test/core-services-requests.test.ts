import {
  ErrorCode,
  type Job,
  JobKind,
  JobPhase,
  JobStatus,
  Limits,
  nowTimestamp,
  RecordKind,
  type TurnInput,
  transition,
} from '@agent-teams/core';
import { describe, expect, it, vi } from 'vitest';
import { alice, bob, expectCode, type Harness, harness, limitSamples, readyTeam, sendOne } from './core-harness.js';

async function teamWithMembers(h: Harness) {
  const { team, members } = await readyTeam(h);
  const [scout, critic] = members;
  if (scout === undefined || critic === undefined) throw new Error('fixture team needs two members');
  return { team, scout, critic };
}

/** Admits every candidate through the store, as the scheduler would, with a minimal frozen input. */
async function admitAll(h: Harness): Promise<readonly Job[]> {
  const now = nowTimestamp(h.clock);
  const admitted = await h.store.admit({
    now,
    plan: (snapshot) => ({ admit: snapshot.candidates.map((c) => c.jobId), round: snapshot.round }),
    freeze: ({ job, team }) => {
      const input: TurnInput = {
        kind: 'request',
        jobId: job.id,
        teamId: team.id,
        text: job.text,
        memberName: 'x',
        requesterName: null,
        receipt: null,
        context: null,
      };
      return transition(job, { type: 'FREEZE', input, runKey: job.id }, { now, ids: h.ids });
    },
  });
  return admitted.map((a) => a.job);
}

describe('requests.send', () => {
  it('creates one QUEUED request per recipient, in order, each starting its own chain', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    const jobs = await h.core.requests.send(alice, {
      teamId: team.id,
      memberIds: [critic.id, scout.id],
      text: '  Check the numbers  ',
      clientRequestId: 'r1',
    });
    expect(jobs.map((j) => [j.memberId, j.conversationId])).toEqual([
      [critic.id, critic.conversationId],
      [scout.id, scout.conversationId],
    ]);
    for (const job of jobs) {
      expect(job).toMatchObject({
        kind: JobKind.REQUEST,
        phase: JobPhase.QUEUED,
        text: 'Check the numbers',
        parentId: null,
        rootId: job.id,
        requester: { memberId: null, conversationId: null },
        clientKey: 'r1',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
    }
    const context = await h.core.teams.context((await h.core.teams.get(alice, team.id)) ?? team);
    expect(context.messages.map((m) => [m.kind, m.jobId, m.memberId])).toEqual([
      [RecordKind.REQUEST, jobs[0]?.id, critic.id],
      [RecordKind.REQUEST, jobs[1]?.id, scout.id],
    ]);
  });

  it('is idempotent per recipient: a retry returns the same jobs and a new recipient gets a new one', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    const input = { teamId: team.id, memberIds: [scout.id], text: 'Find sources', clientRequestId: 'r1' };
    const [first] = await h.core.requests.send(alice, input);
    const [again] = await h.core.requests.send(alice, input);
    expect(again?.id).toBe(first?.id);
    const widened = await h.core.requests.send(alice, { ...input, memberIds: [scout.id, critic.id] });
    expect(widened[0]?.id).toBe(first?.id);
    expect(widened[1]?.id).not.toBe(first?.id);
    expect((await h.core.teams.capacity(team)).requests).toBe(2);
  });

  it('refuses a reused clientRequestId with other text', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    const input = { teamId: team.id, memberIds: [scout.id], text: 'Find sources', clientRequestId: 'r1' };
    await h.core.requests.send(alice, input);
    await expectCode(() => h.core.requests.send(alice, { ...input, text: 'Other' }), ErrorCode.IDEMPOTENCY_CONFLICT);
    expect((await h.core.teams.capacity(team)).requests).toBe(1);
  });

  it('refuses the 101st request with REQUEST_LIMIT, inserts nothing, and still answers retries', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    for (let i = 1; i <= Limits.requestsPerTeam / 2; i += 1) {
      const send = { teamId: team.id, memberIds: [scout.id, critic.id], text: `Task ${i}`, clientRequestId: `r${i}` };
      const jobs = await h.core.requests.send(alice, send);
      for (const job of jobs) await h.core.jobs.cancel(alice, job.id);
    }
    const full = await h.core.teams.get(alice, team.id);
    if (full === null) throw new Error('team vanished');
    const over = { teamId: team.id, memberIds: [scout.id], text: 'One more', clientRequestId: 'r-over' };
    await expectCode(() => h.core.requests.send(alice, over), ErrorCode.REQUEST_LIMIT);
    expect(await h.core.teams.capacity(full)).toMatchObject({ requests: 100, requestLimit: 100 });
    expect((await h.core.teams.get(alice, team.id))?.revision).toBe(full.revision);
    const retry = { teamId: team.id, memberIds: [scout.id], text: 'Task 1', clientRequestId: 'r1' };
    const [reused] = await h.core.requests.send(alice, retry);
    expect(reused?.phase).toBe(JobPhase.CANCELLED);
  });

  it.each([
    { label: 'no recipients', memberIds: () => [] as string[] },
    { label: 'a duplicate recipient', memberIds: (ids: string[]) => [ids[0] ?? '', ids[0] ?? ''] },
    { label: 'nine recipients', memberIds: (ids: string[]) => Array.from({ length: 9 }, (_, i) => `${ids[0]}-${i}`) },
  ])('refuses $label with INVALID_INPUT on memberIds', async ({ memberIds }) => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    const send = { teamId: team.id, memberIds: memberIds([scout.id, critic.id]), text: 'Go', clientRequestId: 'r1' };
    const details = await expectCode(() => h.core.requests.send(alice, send), ErrorCode.INVALID_INPUT);
    expect(details.field).toBe('memberIds');
  });

  it('refuses a member of another team with NOT_FOUND on memberIds', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    const other = await readyTeam(h, alice, { clientRequestId: 'other', name: 'Other' });
    const stranger = other.members[0]?.id ?? '';
    const send = { teamId: team.id, memberIds: [scout.id, stranger], text: 'Go', clientRequestId: 'r1' };
    const details = await expectCode(() => h.core.requests.send(alice, send), ErrorCode.NOT_FOUND);
    expect(details.field).toBe('memberIds');
    expect((await h.core.teams.capacity(team)).requests).toBe(0);
  });

  it('checks the team and its roster under the enqueue’s lock only, reading nothing before it', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    const reads = [vi.spyOn(h.store, 'findTeam'), vi.spyOn(h.store, 'listMembers')];
    const enqueue = vi.spyOn(h.store, 'enqueueRequests');
    const send = (owner: typeof alice, memberIds: string[], key: string) =>
      h.core.requests.send(owner, { teamId: team.id, memberIds, text: 'Go', clientRequestId: key });
    expect((await send(alice, [critic.id, scout.id], 'r1')).map((j) => j.memberId)).toEqual([critic.id, scout.id]);
    expect(enqueue.mock.calls[0]?.[0].withMembers).toBe(true);
    await expectCode(() => send(bob, [scout.id], 'r2'), ErrorCode.NOT_FOUND);
    expect(reads.map((read) => read.mock.calls.length)).toEqual([0, 0]);
    await h.core.lifecycle.retire(alice, critic.id);
    for (const read of reads) read.mockClear();
    expect((await expectCode(() => send(alice, [scout.id, critic.id], 'r3'), ErrorCode.MEMBER_RETIRED)).field).toBe(
      'memberIds',
    );
    expect(reads.map((read) => read.mock.calls.length)).toEqual([0, 0]);
    expect((await h.core.teams.capacity(team)).requests).toBe(2);
  });

  describe('the text length rule', () => {
    it.each(limitSamples(Limits.taskText))('$label: accepted = $ok', async ({ value, ok }) => {
      const h = harness();
      const { team, scout } = await teamWithMembers(h);
      const send = () =>
        h.core.requests.send(alice, { teamId: team.id, memberIds: [scout.id], text: value, clientRequestId: 'r' });
      if (ok) {
        expect((await send())[0]?.text).toBe(value);
      } else {
        const details = await expectCode(send, ErrorCode.INVALID_INPUT);
        expect(details).toEqual({ field: 'text', maxChars: 4_000, maxBytes: 8_000 });
      }
    });

    it('refuses a lone surrogate', async () => {
      const h = harness();
      const { team, scout } = await teamWithMembers(h);
      const send = { teamId: team.id, memberIds: [scout.id], text: 'ok \uD83D', clientRequestId: 'r' };
      expect((await expectCode(() => h.core.requests.send(alice, send), ErrorCode.INVALID_INPUT)).field).toBe('text');
    });
  });
});

describe('jobs.cancel', () => {
  it('cancels a QUEUED request at once and records it in the shared record', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    const job = await sendOne(h, team.id, scout.id, 'Go');
    const outcome = await h.core.jobs.cancel(alice, job.id);
    expect(outcome.alreadyFinished).toBe(false);
    expect(outcome.job.phase).toBe(JobPhase.CANCELLED);
    expect(outcome.job.finishedAt).toBe('2026-01-01T00:00:00.000Z');
    const records = await h.store.recentRecords(team.id, 10);
    expect(records.map((r) => [r.kind, r.jobId])).toEqual([
      [RecordKind.REQUEST, job?.id],
      [RecordKind.CANCELLED, job?.id],
    ]);
  });

  it('answers a finished job unchanged with alreadyFinished', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    const job = await sendOne(h, team.id, scout.id, 'Go');
    const first = await h.core.jobs.cancel(alice, job.id);
    const revision = (await h.core.teams.get(alice, team.id))?.revision;
    const second = await h.core.jobs.cancel(alice, job.id);
    expect(second).toEqual({ job: first.job, alreadyFinished: true });
    expect((await h.core.teams.get(alice, team.id))?.revision).toBe(revision);
  });

  it('moves an admitted job to CANCELLING, which is what tells the scheduler to stop its run', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    await h.core.requests.send(alice, { teamId: team.id, memberIds: [scout.id], text: 'Go', clientRequestId: 'r1' });
    const [admitted] = await admitAll(h);
    expect(admitted?.phase).toBe(JobPhase.ADMITTING);
    const outcome = await h.core.jobs.cancel(alice, admitted?.id ?? '');
    expect(outcome).toMatchObject({ alreadyFinished: false, job: { phase: JobPhase.CANCELLING } });
    const [stored] = await h.store.findJobs(admitted ? [admitted.id] : []);
    expect(stored?.phase).toBe(JobPhase.CANCELLING);
  });

  it('refuses an unknown job with NOT_FOUND', async () => {
    const h = harness();
    await expectCode(() => h.core.jobs.cancel(alice, 'job_404'), ErrorCode.NOT_FOUND);
  });
});

describe('jobs.list and teams.activity', () => {
  it('filters a team’s jobs and refuses a cursor reused with another filter', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    const jobs = await h.core.requests.send(alice, {
      teamId: team.id,
      memberIds: [scout.id, critic.id],
      text: 'Go',
      clientRequestId: 'r1',
    });
    await h.core.jobs.cancel(alice, jobs[0]?.id ?? '');
    const queued = await h.core.jobs.list(team, { statuses: [JobStatus.QUEUED] });
    expect(queued.edges.map((e) => e.node.id)).toEqual([jobs[1]?.id]);
    const scoutPage = await h.core.jobs.list(team, { memberId: scout.id, first: 1 });
    expect(scoutPage).toMatchObject({ totalCount: 1, pageInfo: { hasNextPage: false } });
    const all = await h.core.jobs.list(team, { first: 1 });
    expect(all).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });
    const next = await h.core.jobs.list(team, { first: 1, after: all.pageInfo.endCursor });
    expect(next.edges.map((e) => e.node.id)).toEqual([jobs[1]?.id]);
    await expectCode(
      () => h.core.jobs.list(team, { first: 1, after: all.pageInfo.endCursor, memberId: scout.id }),
      ErrorCode.CURSOR_MISMATCH,
    );
    // An empty list of statuses matches none: a filter of its own, not the unfiltered list.
    expect(await h.core.jobs.list(team, { statuses: [] })).toMatchObject({ totalCount: 0, edges: [] });
    const none = { first: 1, after: all.pageInfo.endCursor, statuses: [] };
    await expectCode(() => h.core.jobs.list(team, none), ErrorCode.CURSOR_MISMATCH);
  });

  it('answers Unchanged while the revision matches and a page of requests once it moved', async () => {
    const h = harness();
    const { team, scout } = await teamWithMembers(h);
    const seen = String(team.revision);
    expect(await h.core.teams.activity(team, { revision: seen })).toEqual({ unchanged: true, revision: seen });
    await h.core.requests.send(alice, { teamId: team.id, memberIds: [scout.id], text: 'Go', clientRequestId: 'r1' });
    const moved = (await h.core.teams.get(alice, team.id)) ?? team;
    expect(String(moved.revision)).not.toBe(seen);
    const activity = await h.core.teams.activity(moved, { revision: seen });
    if (activity.unchanged) throw new Error('expected a page');
    expect(activity.revision).toBe(String(moved.revision));
    expect(activity.jobs.totalCount).toBe(1);
    expect(activity.jobs.edges[0]?.node.kind).toBe(JobKind.REQUEST);
  });
});

describe('capacity, context and member statuses', () => {
  it('derives member statuses from the head job of each conversation', async () => {
    const h = harness();
    const { team, scout, critic } = await teamWithMembers(h);
    await h.core.requests.send(alice, { teamId: team.id, memberIds: [scout.id], text: 'Go', clientRequestId: 'r1' });
    const statuses = await h.core.teams.memberStatuses([scout, critic], [team]);
    expect([statuses.get(scout.id), statuses.get(critic.id)]).toEqual(['QUEUED', 'IDLE']);
  });

  it('reports counts against the contract limits', async () => {
    const h = harness();
    const { team } = await teamWithMembers(h);
    expect(await h.core.teams.capacity(team)).toEqual({
      requests: 0,
      requestLimit: 100,
      receipts: 0,
      receiptLimit: 100,
      chainLimit: 12,
    });
  });
});
