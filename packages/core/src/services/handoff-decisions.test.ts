import { describe, expect, it } from 'vitest';
import { isDomainError } from '../errors/domain-error.js';
import { makeTestJob } from '../jobs/make-test-job.js';
import { asConversationId, asJobId, asMemberId, asRecordId } from '../model/ids.js';
import { type Job, JobKind, JobPhase } from '../model/job.js';
import type { EnqueueSnapshot } from '../ports/team-store.js';
import { chainHops, decideHandoff, repeatsAncestor } from './handoff-decisions.js';
import type { RequestPlan } from './request-decisions.js';

const ada = asMemberId('member_ada');
const bob = asMemberId('member_bob');
const adaConversation = asConversationId('conversation_ada');

const plan = (text = 'check it', key = 'r-1'): RequestPlan => ({
  recipients: [
    {
      memberId: bob,
      conversationId: asConversationId('conversation_bob'),
      jobId: asJobId('job_new'),
      recordId: asRecordId('record_new'),
    },
  ],
  text,
  clientKey: key,
  requester: { memberId: ada, conversationId: adaConversation },
  chain: { parentId: asJobId('job_root'), rootId: asJobId('job_root') },
});

function snapshot(existing: readonly Job[] = [], requestCount = 1, inChain = 1): EnqueueSnapshot {
  return {
    team: {} as EnqueueSnapshot['team'],
    existing,
    requestCount,
    chainCounts: new Map([[asJobId('job_root'), inChain]]),
  };
}

function thrownCode(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return isDomainError(error) ? error.code : 'OTHER';
  }
}

const existing = (overrides: Partial<Job>): Job =>
  makeTestJob(overrides.phase ?? JobPhase.QUEUED, {
    id: asJobId('job_old'),
    memberId: bob,
    clientKey: 'r-1',
    text: 'check it',
    requester: { memberId: ada, conversationId: adaConversation },
    ...overrides,
  });

describe('decideHandoff', () => {
  it('inserts a new handoff into the parent chain', () => {
    const decision = decideHandoff(plan(), false, snapshot());
    expect(decision.resultIds).toEqual(['job_new']);
    expect(decision.insert[0]).toMatchObject({
      parentId: 'job_root',
      rootId: 'job_root',
      requester: { memberId: ada },
    });
  });

  it('answers a retried request_id with the original, even at capacity and even if it now looks like a loop', () => {
    const decision = decideHandoff(plan(), true, snapshot([existing({})], 100, 12));
    expect(decision).toEqual({ insert: [], resultIds: ['job_old'] });
  });

  it('refuses a request_id reused for another text or another member', () => {
    expect(thrownCode(() => decideHandoff(plan('else'), false, snapshot([existing({})])))).toBe('IDEMPOTENCY_CONFLICT');
    const toAda = existing({ memberId: ada });
    expect(thrownCode(() => decideHandoff(plan(), false, snapshot([toAda])))).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('refuses a loop before the budgets, and the budgets with REQUEST_LIMIT', () => {
    expect(thrownCode(() => decideHandoff(plan(), true, snapshot([], 100, 12)))).toBe('HANDOFF_LOOP');
    expect(thrownCode(() => decideHandoff(plan(), false, snapshot([], 100, 1)))).toBe('REQUEST_LIMIT');
    expect(thrownCode(() => decideHandoff(plan(), false, snapshot([], 5, 12)))).toBe('REQUEST_LIMIT');
    expect(thrownCode(() => decideHandoff(plan(), false, snapshot([], 99, 11)))).toBeNull();
  });
});

describe('chain hops and the loop rule', () => {
  it('compares (from, to, text) of ancestor requests only, skipping receipts', () => {
    const request = existing({ kind: JobKind.REQUEST, phase: JobPhase.COMPLETED });
    const receipt = existing({ kind: JobKind.RECEIPT, requester: { memberId: null, conversationId: null } });
    const hops = chainHops([receipt, request]);
    expect(hops).toEqual([{ from: ada, to: bob, text: 'check it' }]);
    expect(repeatsAncestor({ from: ada, to: bob, text: 'check it' }, hops)).toBe(true);
    expect(repeatsAncestor({ from: bob, to: ada, text: 'check it' }, hops)).toBe(false);
    expect(repeatsAncestor({ from: ada, to: bob, text: 'check it again' }, hops)).toBe(false);
  });
});
