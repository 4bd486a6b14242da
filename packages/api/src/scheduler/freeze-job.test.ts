import {
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asOwnerId,
  asRecordId,
  asTeamId,
  type FreezeContext,
  type Job,
  JobKind,
  JobPhase,
  type Member,
  type RecordMessage,
  type Team,
  TeamStatus,
  teamContextJson,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { SCRIPTED_ONLY, WRITER_CATALOG } from '../../test/support/freeze-catalog.js';
import { freezeJob } from './freeze-job.js';

const team: Team = {
  id: asTeamId('team_1'),
  owner: asOwnerId('alice'),
  clientRequestId: 'create-1',
  name: 'Team',
  goal: 'Ship the report',
  status: TeamStatus.READY,
  revision: 1,
  lastEventSeq: 4,
  createdAt: '2026-12-05T00:00:00.000Z',
  updatedAt: '2026-12-05T00:00:00.000Z',
};
const member = (i: number, role: string | null = null): Member => ({
  id: asMemberId(`member_${i}`),
  teamId: team.id,
  position: i,
  name: `Member ${i} 数据 😀`,
  agentId: asAgentId('writer'),
  conversationId: asConversationId(`conversation_${i}`),
  role,
  isLead: i === 0,
  retiredAt: null,
});
const roster = [member(0), member(1), member(2)];
const records: readonly RecordMessage[] = Array.from({ length: 3 }, (_, i) => ({
  id: asRecordId(`record_${i}`),
  teamId: team.id,
  seq: i + 1,
  kind: 'COMPLETED',
  jobId: asJobId(`job_old_${i}`),
  memberId: asMemberId('member_0'),
  fromMemberId: asMemberId('member_0'),
  text: `answer ${i}: ${'x'.repeat(2_000)}`,
  truncated: false,
  createdAt: '2026-12-05T00:00:00.000Z',
}));
const job = (i: number): Job => ({
  id: asJobId(`job_${i}`),
  teamId: team.id,
  owner: team.owner,
  kind: JobKind.REQUEST,
  phase: JobPhase.QUEUED,
  seq: i,
  memberId: asMemberId(`member_${i}`),
  conversationId: asConversationId(`conversation_${i}`),
  requester: { memberId: null, conversationId: null },
  parentId: null,
  rootId: asJobId(`job_${i}`),
  clientKey: `key_${i}`,
  text: 'Check the numbers',
  input: null,
  runKey: null,
  runId: null,
  pendingInput: null,
  pendingResponse: null,
  wait: null,
  result: null,
  error: null,
  errorCode: null,
  startedAt: null,
  finishedAt: null,
  createdAt: '2026-12-05T00:00:00.000Z',
  updatedAt: '2026-12-05T00:00:00.000Z',
});
const agents = WRITER_CATALOG;
const runtimes = SCRIPTED_ONLY;
const tctx = { now: '2026-12-05T00:00:01.000Z', ids: null as never };

/** The context `freezeJob` froze into the job's input. */
function frozenContext(ctx: FreezeContext): unknown {
  const outcome = freezeJob(ctx, agents, runtimes, tctx);
  if (!outcome.ok) throw outcome.error;
  return outcome.job.input?.context;
}

describe('freezeJob', () => {
  it("builds a team's context once for the jobs frozen from one records list, and it is the team's context", () => {
    const first = frozenContext({ job: job(0), team, members: [...roster], recentRecords: records });
    const second = frozenContext({ job: job(1), team: { ...team }, members: [...roster], recentRecords: records });
    expect(second).toBe(first);
    expect(first).toEqual(teamContextJson(team, roster, records));
  });

  it('builds it again for another records list, goal, roster or team', () => {
    const first = frozenContext({ job: job(0), team, members: roster, recentRecords: records });
    const cases: FreezeContext[] = [
      { job: job(1), team, members: roster, recentRecords: [...records] },
      { job: job(1), team: { ...team, goal: 'A new goal 数据 😀' }, members: roster, recentRecords: records },
      {
        job: job(1),
        team,
        members: [roster[0] as Member, roster[1] as Member, member(2, 'Checks numbers')],
        recentRecords: records,
      },
      { job: job(1), team, members: roster.slice(0, 2), recentRecords: records },
      { job: job(1), team: { ...team, id: asTeamId('team_2') }, members: roster, recentRecords: records },
    ];
    for (const ctx of cases) {
      const context = frozenContext(ctx);
      expect(context).not.toBe(first);
      expect(context).toEqual(teamContextJson(ctx.team, ctx.members, ctx.recentRecords));
    }
  });
});
