import { describe, expect, it } from 'vitest';
import { asConversationId, asJobId, asOwnerId, asTeamId, type OwnerId } from '../model/ids.js';
import { type AdmissionPolicy, DEFAULT_ADMISSION_POLICY, ownerCap } from './admission-policy.js';
import { type AdmissionCandidate, EMPTY_ROUND } from './admission-types.js';
import { planAdmissions } from './plan-admissions.js';

const A = asOwnerId('alice');
const B = asOwnerId('bob');

function backlog(owner: OwnerId, n: number, from: number): AdmissionCandidate[] {
  return Array.from({ length: n }, (_, i) => ({
    jobId: asJobId(`${owner}_${from + i}`),
    owner,
    teamId: asTeamId(`team_${owner}`),
    conversationId: asConversationId(`${owner}/${from + i}`),
    seq: from + i,
  }));
}

const policy = (over: Partial<AdmissionPolicy>): AdmissionPolicy => ({ ...DEFAULT_ADMISSION_POLICY, ...over });
const ownersOf = (ids: readonly string[]) => ids.map((id) => id.split('_')[0]);

describe('planAdmissions with a policy', () => {
  it('interleaves weighted shares within a round (weights 3 and 1: A B A A)', () => {
    const p = policy({ reservedForOthers: 0, owners: new Map([[A, { maxActive: null, weight: 3 }]]) });
    const plan = planAdmissions(
      { active: 0, capacity: 8, candidates: [...backlog(A, 8, 0), ...backlog(B, 8, 100)], round: EMPTY_ROUND },
      p,
    );
    expect(ownersOf(plan.admit)).toEqual(['alice', 'bob', 'alice', 'alice', 'alice', 'bob', 'alice', 'alice']);
    // The second round is complete; the next pick starts a new one.
    expect(plan.round.served).toEqual([A, A, A, B]);
  });

  it('keeps an owner at its cap queued and gives the slots to others', () => {
    const p = policy({ reservedForOthers: 0, owners: new Map([[A, { maxActive: 2, weight: 1 }]]) });
    const candidates = [...backlog(A, 8, 0), ...backlog(B, 2, 100)];
    const plan = planAdmissions(
      { active: 1, activeByOwner: new Map([[A, 1]]), capacity: 8, candidates, round: EMPTY_ROUND },
      p,
    );
    expect(ownersOf(plan.admit)).toEqual(['alice', 'bob', 'bob']);
  });

  it('by default holds one owner to activeJobs − 2 and starts another owner at once', () => {
    const alone = planAdmissions(
      { active: 0, capacity: 8, candidates: backlog(A, 8, 0), round: EMPTY_ROUND },
      DEFAULT_ADMISSION_POLICY,
    );
    expect(alone.admit).toHaveLength(6);
    const later = planAdmissions(
      {
        active: 6,
        activeByOwner: new Map([[A, 6]]),
        capacity: 8,
        candidates: [...backlog(A, 2, 6), ...backlog(B, 1, 100)],
        round: alone.round,
      },
      DEFAULT_ADMISSION_POLICY,
    );
    expect(ownersOf(later.admit)).toEqual(['bob']);
  });

  it('admits nothing for an owner already above a lowered cap', () => {
    const p = policy({ reservedForOthers: 0, owners: new Map([[A, { maxActive: 1, weight: 1 }]]) });
    const plan = planAdmissions(
      { active: 3, activeByOwner: new Map([[A, 3]]), capacity: 8, candidates: backlog(A, 3, 0), round: EMPTY_ROUND },
      p,
    );
    expect(plan.admit).toEqual([]);
  });

  it('caps an owner at its own maxActive or activeJobs − reservedForOthers, whichever is lower, never below 1', () => {
    const p = policy({ reservedForOthers: 2, owners: new Map([[A, { maxActive: 3, weight: 1 }]]) });
    expect(ownerCap(p, A, 8)).toBe(3);
    expect(ownerCap(p, B, 8)).toBe(6);
    expect(ownerCap(p, B, 2)).toBe(1);
    expect(ownerCap({ ...p, reservedForOthers: 0 }, B, 8)).toBe(8);
  });
});
