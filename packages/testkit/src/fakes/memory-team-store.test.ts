import {
  asAgentId,
  asConversationId,
  asMemberId,
  asOwnerId,
  asTeamId,
  EMPTY_ROUND,
  ErrorCode,
  type Job,
  JobPhase,
  type NewRequest,
  type RoundState,
  type TeamEvent,
  TeamStatus,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createMemoryTeamStore, type MemoryTeamStore } from './memory-team-store.js';
import { SequentialIds } from './sequential-ids.js';

const NOW = '2026-01-01T00:00:00.000Z';
const alice = asOwnerId('alice');

async function setup(status: TeamStatus = TeamStatus.READY) {
  const published: TeamEvent[][] = [];
  const ids = new SequentialIds();
  const store = createMemoryTeamStore({ ids, events: { published: (events) => published.push([...events]) } });
  const members = [0, 1].map((i) => ({
    id: asMemberId(`member_${i}`),
    name: `M${i}`,
    agentId: asAgentId('writer'),
    conversationId: asConversationId(`conversation_${i}`),
  }));
  const input = {
    id: asTeamId('team_1'),
    owner: alice,
    clientRequestId: 'c',
    fingerprint: 'f',
    name: 'A',
    goal: 'G',
    members,
  };
  const { team } = await store.createTeam(input, { now: NOW, maxTeams: 20 });
  if (status !== TeamStatus.CREATING) await store.setTeamStatus(team.id, status, NOW);
  return { store, ids, team, members, published };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Enqueues one request per member index (may repeat), straight through the store. */
async function enqueue(s: Setup, memberIndexes: readonly number[]): Promise<readonly Job[]> {
  const insert: NewRequest[] = memberIndexes.map((i) => {
    const member = s.members[i];
    if (member === undefined) throw new Error(`no member ${i}`);
    const id = s.ids.jobId();
    return {
      id,
      recordId: s.ids.recordId(),
      memberId: member.id,
      conversationId: member.conversationId,
      requester: { memberId: null, conversationId: null },
      parentId: null,
      rootId: id,
      clientKey: id,
      text: `task ${id}`,
    };
  });
  return s.store.enqueueRequests({
    owner: alice,
    teamId: s.team.id,
    keys: [],
    roots: [],
    now: NOW,
    decide: () => ({ insert, resultIds: insert.map((r) => r.id) }),
  });
}

/** Runs one admission pass that admits nothing; returns what the planner saw. */
async function planPass(store: MemoryTeamStore, nextRound: RoundState) {
  let seen: { candidates: string[]; round: RoundState } = { candidates: [], round: EMPTY_ROUND };
  await store.admit({
    now: NOW,
    plan: (snapshot) => {
      seen = { candidates: snapshot.candidates.map((c) => c.jobId), round: snapshot.round };
      return { admit: [], round: nextRound };
    },
    freeze: () => {
      throw new Error('nothing is admitted');
    },
  });
  return seen;
}

describe('MemoryTeamStore', () => {
  it('bumps the revision once per visible change and publishes the logged events after commit', async () => {
    const s = await setup(TeamStatus.CREATING);
    expect((await s.store.findTeam(alice, s.team.id))?.revision).toBe(1);
    const logged = await s.store.readEvents(s.team.id, 0, 100);
    expect(logged.map((e) => e.kind)).toEqual(['TEAM_CHANGED', 'MEMBER_CHANGED', 'MEMBER_CHANGED']);
    expect(s.published.flat()).toEqual(logged);
    await s.store.setTeamStatus(s.team.id, TeamStatus.CREATING, NOW);
    expect((await s.store.findTeam(alice, s.team.id))?.revision).toBe(1);
    await enqueue(s, [0]);
    const after = await s.store.findTeam(alice, s.team.id);
    expect(after?.revision).toBe(2);
    expect(after?.lastEventSeq).toBe((await s.store.readEvents(s.team.id, 0, 100)).at(-1)?.seq);
  });

  it('retains only the newest 100 record messages of a team', async () => {
    const s = await setup();
    const jobs = await enqueue(
      s,
      Array.from({ length: 101 }, (_, i) => i % 2),
    );
    const records = await s.store.recentRecords(s.team.id, 1_000);
    expect(records).toHaveLength(100);
    expect(records[0]?.jobId).toBe(jobs[1]?.id);
    expect(await s.store.findRecords([s.ids.recordId()])).toEqual([]);
  });

  it('writes nothing when decide returns the job unchanged, and hides another owner’s job', async () => {
    const s = await setup();
    const [job] = await enqueue(s, [0]);
    if (!job) throw new Error('no job');
    const id = job.id;
    const before = await s.store.findTeam(alice, s.team.id);
    const result = await s.store.updateJob(id, (j) => ({ ok: true, job: j, effects: [] }), { now: NOW });
    expect(result.changed).toBe(false);
    expect(await s.store.findTeam(alice, s.team.id)).toEqual(before);
    await expect(
      s.store.updateJob(id, (j) => ({ ok: true, job: j, effects: [] }), { now: NOW, owner: asOwnerId('bob') }),
    ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('offers only the head QUEUED job of each idle conversation of READY teams, and keeps the round state', async () => {
    const s = await setup();
    const jobs = await enqueue(s, [0, 0, 1]);
    const first = await planPass(s.store, { rotation: [alice], served: [alice] });
    expect(first.candidates).toEqual([jobs[0]?.id, jobs[2]?.id]);
    expect(first.round).toEqual(EMPTY_ROUND);
    const second = await planPass(s.store, EMPTY_ROUND);
    expect(second.round).toEqual({ rotation: [alice], served: [alice] });
    await s.store.setTeamStatus(s.team.id, TeamStatus.DISCONNECTED, NOW);
    expect((await planPass(s.store, EMPTY_ROUND)).candidates).toEqual([]);
  });

  it('freezes the admitted job, counts it active and offers nothing behind it in its conversation', async () => {
    const s = await setup();
    const jobs = await enqueue(s, [0, 0, 1]);
    const head = jobs[0]?.id;
    const admitted = await s.store.admit({
      now: NOW,
      plan: (snapshot) => ({ admit: snapshot.candidates.slice(0, 1).map((c) => c.jobId), round: snapshot.round }),
      freeze: ({ job, members, recentRecords }) => {
        expect(members).toHaveLength(2);
        expect(recentRecords.map((r) => r.jobId)).toEqual(jobs.map((j) => j.id));
        return { ok: true, job: { ...job, phase: JobPhase.ADMITTING, runKey: job.id }, effects: [] };
      },
    });
    expect(admitted.map((a) => [a.job.id, a.job.phase])).toEqual([[head, JobPhase.ADMITTING]]);
    let seen: { active: number; candidates: string[] } = { active: -1, candidates: [] };
    await s.store.admit({
      now: NOW,
      plan: (snapshot) => {
        seen = { active: snapshot.active, candidates: snapshot.candidates.map((c) => c.jobId) };
        return { admit: [], round: snapshot.round };
      },
      freeze: () => {
        throw new Error('nothing is admitted');
      },
    });
    expect(seen).toEqual({ active: 1, candidates: [jobs[2]?.id] });
    expect((await s.store.listActiveJobs()).map((j) => j.id)).toEqual([head]);
  });

  it('persists a receipt effect as a QUEUED RECEIPT in the requester’s conversation', async () => {
    const s = await setup();
    const [job] = await enqueue(s, [0]);
    if (job === undefined) throw new Error('no job');
    const receipt = {
      id: s.ids.jobId(),
      memberId: asMemberId('member_1'),
      conversationId: asConversationId('conversation_1'),
      text: '{}',
    };
    const finished: Job = { ...job, phase: JobPhase.COMPLETED, finishedAt: NOW };
    await s.store.updateJob(
      job.id,
      () => ({ ok: true, job: finished, effects: [{ type: 'CREATE_RECEIPT', receipt }] }),
      { now: NOW },
    );
    const [stored] = await s.store.findJobs([receipt.id]);
    expect(stored).toMatchObject({
      kind: 'RECEIPT',
      phase: JobPhase.QUEUED,
      parentId: job.id,
      rootId: job.rootId,
      conversationId: 'conversation_1',
    });
    expect(await s.store.countJobs(s.team.id)).toEqual({ requests: 1, receipts: 1 });
    const states = await s.store.conversationStates([
      asConversationId('conversation_0'),
      asConversationId('conversation_1'),
    ]);
    expect(states.get(asConversationId('conversation_0'))).toEqual({ head: null, lastFinished: JobPhase.COMPLETED });
    expect(states.get(asConversationId('conversation_1'))).toEqual({ head: JobPhase.QUEUED, lastFinished: null });
  });

  it('deletes a finished team with its jobs, members, record and events but keeps conversations', async () => {
    const s = await setup();
    const conversationId = asConversationId('conversation_0');
    await s.store.appendConversation(conversationId, [{ role: 'USER', text: 'hi', toolName: null, jobId: null }], NOW);
    const [job] = await enqueue(s, [0]);
    await expect(s.store.deleteTeam(alice, s.team.id, NOW)).rejects.toMatchObject({ code: ErrorCode.PENDING_WORK });
    const cancelled: Job = { ...(job as Job), phase: JobPhase.CANCELLED, finishedAt: NOW };
    await s.store.updateJob(cancelled.id, () => ({ ok: true, job: cancelled, effects: [] }), { now: NOW });
    await s.store.deleteTeam(alice, s.team.id, NOW);
    expect(await s.store.findTeam(alice, s.team.id)).toBeNull();
    expect(await s.store.findJobs([cancelled.id])).toEqual([]);
    expect(await s.store.listMembers([s.team.id])).toEqual([]);
    expect(await s.store.readEvents(s.team.id, 0, 100)).toEqual([]);
    expect((await s.store.listConversation(conversationId, { first: 10, afterSeq: null })).items).toHaveLength(1);
  });
});
