import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asConversationId, asJobId, asOwnerId, asTeamId, type OwnerId } from '../model/ids.js';
import type { AdmissionPolicy } from './admission-policy.js';
import { type AdmissionCandidate, type AdmissionSnapshot, headsPerOwner } from './admission-types.js';
import { planAdmissions, settledRound } from './plan-admissions.js';

/** Each owner's oldest `perOwner` candidates, as a store that reads only those offers them. */
function oldestPerOwner(candidates: readonly AdmissionCandidate[], perOwner: number): AdmissionCandidate[] {
  const taken = new Map<OwnerId, number>();
  return [...candidates]
    .sort((a, b) => a.seq - b.seq)
    .filter((candidate) => {
      const n = taken.get(candidate.owner) ?? 0;
      taken.set(candidate.owner, n + 1);
      return n < perOwner;
    });
}

const owner = (i: number) => asOwnerId(`owner-${i}`);

/** A pass's inputs: owners with backlogs of heads (one per conversation), slots, a round, a policy. */
const passInputs = fc
  .record({
    owners: fc.integer({ min: 1, max: 6 }),
    capacity: fc.integer({ min: 1, max: 12 }),
    reserved: fc.integer({ min: 0, max: 3 }),
    rules: fc.array(
      fc.record({ weight: fc.integer({ min: 1, max: 5 }), maxActive: fc.option(fc.integer({ min: 1, max: 6 })) }),
      { minLength: 6, maxLength: 6 },
    ),
  })
  .chain(({ owners, capacity, reserved, rules }) =>
    fc.record({
      capacity: fc.constant(capacity),
      // Heads in creation order, each naming its owner.
      heads: fc.array(fc.integer({ min: 0, max: owners - 1 }), { maxLength: 60 }),
      active: fc.array(fc.integer({ min: 0, max: capacity + 2 }), { minLength: owners, maxLength: owners }),
      rotation: fc.shuffledSubarray(
        Array.from({ length: owners + 1 }, (_, i) => owner(i)),
        { minLength: 0 },
      ),
      served: fc.array(fc.integer({ min: 0, max: owners }), { maxLength: 8 }),
      policy: fc.constant<AdmissionPolicy>({
        activeJobs: capacity,
        reservedForOthers: Math.min(reserved, capacity - 1),
        defaultOwner: { maxActive: null, weight: 1 },
        owners: new Map(rules.slice(0, owners).map((rule, i) => [owner(i), rule])),
      }),
    }),
  );

describe('headsPerOwner: a snapshot with each owner’s oldest heads plans as one with all of them', () => {
  it('admits the same jobs, keeps the same round and settles the same way', () => {
    fc.assert(
      fc.property(passInputs, ({ capacity, heads, active, rotation, served, policy }) => {
        const candidates: AdmissionCandidate[] = heads.map((o, i) => ({
          jobId: asJobId(`job-${i}`),
          owner: owner(o),
          teamId: asTeamId(`team-${o}`),
          conversationId: asConversationId(`conversation-${i}`),
          seq: 100 + i,
        }));
        const activeByOwner = new Map(active.map((n, i) => [owner(i), n]));
        const total = active.reduce((sum, n) => sum + n, 0);
        const snapshot: AdmissionSnapshot = {
          active: total,
          activeByOwner,
          candidates,
          round: { rotation, served: served.map(owner) },
          capacity,
        };
        const offered = oldestPerOwner(candidates, headsPerOwner(capacity, total));
        const all = planAdmissions(snapshot, policy);
        const fewer = planAdmissions({ ...snapshot, candidates: offered }, policy);
        expect(fewer).toEqual(all);
        expect(settledRound(fewer, offered)).toEqual(settledRound(all, candidates));
      }),
      { numRuns: 2_000 },
    );
  });

  it('needs the one head past the free slots: without it a pass would settle a round that has work left', () => {
    const candidates = [0, 1].map((i) => ({
      jobId: asJobId(`job-${i}`),
      owner: owner(0),
      teamId: asTeamId('team'),
      conversationId: asConversationId(`conversation-${i}`),
      seq: i,
    }));
    const snapshot = { active: 7, candidates, round: { rotation: [], served: [] }, capacity: 8 };
    expect(headsPerOwner(8, 7)).toBe(2);
    const plan = planAdmissions(snapshot);
    // One free slot: both heads offered, one admitted, the round stays open.
    expect(plan.admit).toEqual([asJobId('job-0')]);
    expect(settledRound(plan, candidates)).toEqual(plan.round);
    // Offered only one, the pass would take the round as settled (empty) though job-1 waits.
    expect(settledRound(plan, candidates.slice(0, 1))).toEqual({ rotation: [], served: [] });
  });

  it('is one more than the free slots, and one while every slot is taken or overtaken', () => {
    expect(headsPerOwner(8, 0)).toBe(9);
    expect(headsPerOwner(8, 7)).toBe(2);
    expect(headsPerOwner(8, 8)).toBe(1);
    expect(headsPerOwner(8, 11)).toBe(1);
  });
});
