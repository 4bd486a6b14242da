import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { makeTestJob } from '../jobs/make-test-job.js';
import { Limits } from '../limits/limits.js';
import { asConversationId, asJobId, asMemberId, asOwnerId, asRecordId, asTeamId, type JobId } from '../model/ids.js';
import { TeamStatus } from '../model/team.js';
import type { EnqueueSnapshot } from '../ports/team-store.js';
import { decideRequests, type RequestPlan, type RequestRecipient } from './request-decisions.js';

const team = {
  id: asTeamId('team_1'),
  owner: asOwnerId('alice'),
  clientRequestId: 'c',
  name: 'Alpha',
  goal: 'Goal',
  status: TeamStatus.READY,
  revision: 1,
  lastEventSeq: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function recipient(n: number): RequestRecipient {
  return {
    memberId: asMemberId(`member_${n}`),
    conversationId: asConversationId(`conversation_${n}`),
    jobId: asJobId(`job_new_${n}`),
    recordId: asRecordId(`record_new_${n}`),
  };
}

function plan(overrides: Partial<RequestPlan> = {}): RequestPlan {
  return {
    recipients: [recipient(1), recipient(2)],
    text: 'Check the numbers',
    clientKey: 'r1',
    requester: { memberId: null, conversationId: null },
    chain: null,
    ...overrides,
  };
}

function snapshot(overrides: Partial<EnqueueSnapshot> = {}): EnqueueSnapshot {
  return { team, existing: [], requestCount: 0, chainCounts: new Map(), ...overrides };
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('decideRequests', () => {
  it('inserts one new chain per recipient, in order, with the pre-minted ids', () => {
    const decision = decideRequests(plan(), snapshot());
    expect(decision.resultIds).toEqual(['job_new_1', 'job_new_2']);
    expect(decision.insert.map((r) => [r.id, r.recordId, r.memberId, r.rootId, r.parentId])).toEqual([
      ['job_new_1', 'record_new_1', 'member_1', 'job_new_1', null],
      ['job_new_2', 'record_new_2', 'member_2', 'job_new_2', null],
    ]);
  });

  it('reuses an existing job with the same key and text, even when the team is full', () => {
    const existing = makeTestJob(undefined, {
      id: asJobId('job_old'),
      memberId: asMemberId('member_1'),
      clientKey: 'r1',
      text: 'Check the numbers',
      requester: { memberId: null, conversationId: null },
    });
    const full = snapshot({ existing: [existing], requestCount: Limits.requestsPerTeam });
    const decision = decideRequests(plan({ recipients: [recipient(1)] }), full);
    expect(decision).toEqual({ insert: [], resultIds: ['job_old'] });
  });

  it('refuses the same key with other text as IDEMPOTENCY_CONFLICT', () => {
    const existing = makeTestJob(undefined, {
      memberId: asMemberId('member_2'),
      clientKey: 'r1',
      text: 'Something else',
      requester: { memberId: null, conversationId: null },
    });
    expect(codeOf(() => decideRequests(plan(), snapshot({ existing: [existing] })))).toBe(
      ErrorCode.IDEMPOTENCY_CONFLICT,
    );
  });

  it('fills the team up to the limit and refuses one more with REQUEST_LIMIT', () => {
    const two = Limits.requestsPerTeam - 2;
    expect(decideRequests(plan(), snapshot({ requestCount: two })).insert).toHaveLength(2);
    expect(codeOf(() => decideRequests(plan(), snapshot({ requestCount: two + 1 })))).toBe(ErrorCode.REQUEST_LIMIT);
  });

  it('says what the team holds and what the refused send would add, below the limit too', () => {
    const held = Limits.requestsPerTeam - 4;
    let refused: unknown;
    try {
      decideRequests(plan({ recipients: [1, 2, 3, 4, 5, 6].map(recipient) }), snapshot({ requestCount: held }));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    const { message, details } = refused as DomainError;
    expect(details).toEqual({ scope: 'team', limit: Limits.requestsPerTeam, held, adding: 6 });
    expect(message).toContain(
      `This team holds ${held} of its ${Limits.requestsPerTeam} requests; this send would add 6 (room for 4).`,
    );
  });

  it('joins a handoff to its chain and refuses the 13th request of a chain', () => {
    const root: JobId = asJobId('job_root');
    const handoff = plan({ recipients: [recipient(3)], chain: { parentId: asJobId('job_parent'), rootId: root } });
    const at = (count: number) => snapshot({ requestCount: count, chainCounts: new Map([[root, count]]) });
    const decision = decideRequests(handoff, at(Limits.requestsPerChain - 1));
    expect(decision.insert[0]).toMatchObject({ rootId: root, parentId: 'job_parent' });
    expect(codeOf(() => decideRequests(handoff, at(Limits.requestsPerChain)))).toBe(ErrorCode.REQUEST_LIMIT);
  });
});
