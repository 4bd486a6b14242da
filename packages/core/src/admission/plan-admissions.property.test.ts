import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asConversationId, asJobId, asOwnerId, asTeamId, type OwnerId } from '../model/ids.js';
import { type AdmissionCandidate, EMPTY_ROUND, type RoundState } from './admission-types.js';
import { planAdmissions } from './plan-admissions.js';

const CAPACITY = 8;

interface Scenario {
  /** Owners in join order (their oldest job is older than the next owner's). */
  readonly joinOrder: readonly OwnerId[];
  /** Conversations per owner; more than the capacity, so every owner always has an idle one. */
  readonly conversations: number;
  /** Per pass: how many active jobs finish before it, and which ones (indices, taken modulo). */
  readonly passes: readonly { readonly finish: number; readonly picks: readonly number[]; readonly shift: number }[];
}

const scenario: fc.Arbitrary<Scenario> = fc.integer({ min: 1, max: 10 }).chain((k) =>
  fc.record({
    joinOrder: fc.shuffledSubarray(
      Array.from({ length: k }, (_, i) => asOwnerId(`owner_${i}`)),
      { minLength: k, maxLength: k },
    ),
    conversations: fc.integer({ min: CAPACITY + 1, max: CAPACITY + 4 }),
    passes: fc.array(
      fc.record({
        finish: fc.integer({ min: 0, max: CAPACITY }),
        picks: fc.array(fc.nat(), { minLength: CAPACITY, maxLength: CAPACITY }),
        shift: fc.nat(),
      }),
      { minLength: 5, maxLength: 60 },
    ),
  }),
);

/** Runs the real planner over many passes with unlimited backlogs; returns the owners admitted, in order. */
function simulate({ joinOrder, conversations, passes }: Scenario): OwnerId[] {
  const k = joinOrder.length;
  const busy = new Set<string>();
  const nextJob = new Map<string, number>();
  const active: { owner: OwnerId; conv: string }[] = [];
  let round: RoundState = EMPTY_ROUND;
  const admitted: OwnerId[] = [];

  for (const pass of passes) {
    for (let i = 0; i < pass.finish && active.length > 0; i += 1) {
      const [done] = active.splice((pass.picks[i] ?? 0) % active.length, 1);
      if (done !== undefined) busy.delete(done.conv);
    }
    const candidates: AdmissionCandidate[] = [];
    joinOrder.forEach((owner, rank) => {
      for (let c = 0; c < conversations; c += 1) {
        const conv = `${owner}/${c}`;
        if (busy.has(conv)) continue;
        const n = nextJob.get(conv) ?? 0;
        // Creation order: round n of every conversation, owners interleaved in join order.
        const seq = (n * conversations + c) * k + rank;
        candidates.push({
          jobId: asJobId(`${conv}/${n}`),
          owner,
          teamId: asTeamId(`team_${owner}`),
          conversationId: asConversationId(conv),
          seq,
        });
      }
    });
    // The store may list candidates in any order.
    const shift = pass.shift % candidates.length;
    const shuffled = [...candidates.slice(shift), ...candidates.slice(0, shift)];
    const plan = planAdmissions({ active: active.length, capacity: CAPACITY, candidates: shuffled, round });
    expect(plan.admit).toHaveLength(CAPACITY - active.length);
    for (const jobId of plan.admit) {
      const candidate = candidates.find((c) => c.jobId === jobId);
      if (candidate === undefined) throw new Error(`admitted an unknown job ${jobId}`);
      expect(busy.has(candidate.conversationId)).toBe(false);
      busy.add(candidate.conversationId);
      nextJob.set(candidate.conversationId, (nextJob.get(candidate.conversationId) ?? 0) + 1);
      active.push({ owner: candidate.owner, conv: candidate.conversationId });
      admitted.push(candidate.owner);
    }
    round = plan.round;
  }
  return admitted;
}

/** The simple model: a plain cyclic queue of owners in join order, one admission per turn. */
function cyclicModel(joinOrder: readonly OwnerId[], count: number): OwnerId[] {
  const queue = [...joinOrder];
  const out: OwnerId[] = [];
  for (let i = 0; i < count; i += 1) {
    const owner = queue.shift() as OwnerId;
    out.push(owner);
    queue.push(owner);
  }
  return out;
}

describe('planAdmissions fairness (property)', () => {
  it('admits backlogged owners exactly like a cyclic queue, whatever slots free up between passes', () => {
    // numRuns: 300 scenarios of 5–60 passes each (up to 480 admissions per scenario).
    fc.assert(
      fc.property(scenario, (s) => {
        const admitted = simulate(s);
        expect(admitted).toEqual(cyclicModel(s.joinOrder, admitted.length));

        const window = CAPACITY * s.joinOrder.length;
        for (let start = 0; start + window <= admitted.length; start += 1) {
          const counts = new Map(s.joinOrder.map((o) => [o, 0]));
          for (const owner of admitted.slice(start, start + window)) counts.set(owner, (counts.get(owner) ?? 0) + 1);
          const values = [...counts.values()];
          expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});
