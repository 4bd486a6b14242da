import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownerCap } from './admission-policy.js';
import { type AdmissionScenario, ownerIds, scenarioPolicy, simulateAdmissions } from './simulate-admissions.js';

const passes = (capacity: number) =>
  fc.array(
    fc.record({
      finish: fc.integer({ min: 0, max: capacity }),
      picks: fc.array(fc.nat(), { minLength: capacity, maxLength: capacity }),
      shift: fc.nat(),
    }),
    { minLength: 5, maxLength: 50 },
  );

/** Backlogged owners with weights 1–5 and no caps at all. */
const uncapped: fc.Arbitrary<AdmissionScenario> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 12 }),
    weights: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
  })
  .chain(({ capacity, weights }) =>
    passes(capacity).map((p) => ({
      capacity,
      reservedForOthers: 0,
      owners: ownerIds(weights.length).map((id, i) => ({ id, rule: { maxActive: null, weight: weights[i] ?? 1 } })),
      passes: p,
    })),
  );

/** Backlogged owners with weights, own caps and slots reserved for others. */
const capped: fc.Arbitrary<AdmissionScenario> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 12 }),
    reserved: fc.integer({ min: 0, max: 3 }),
    rules: fc.array(
      fc.record({ weight: fc.integer({ min: 1, max: 5 }), maxActive: fc.option(fc.integer({ min: 1, max: 6 })) }),
      { minLength: 1, maxLength: 6 },
    ),
  })
  .chain(({ capacity, reserved, rules }) =>
    passes(capacity).map((p) => ({
      capacity,
      reservedForOthers: Math.min(reserved, capacity - 1),
      owners: ownerIds(rules.length).map((id, i) => ({
        id,
        rule: { maxActive: rules[i]?.maxActive ?? null, weight: rules[i]?.weight ?? 1 },
      })),
      passes: p,
    })),
  );

const totalWeight = (s: AdmissionScenario) => s.owners.reduce((sum, o) => sum + o.rule.weight, 0);

/** Fails when an owner, while it could take a slot, saw more than `bound(owner)` admissions of others in a row. */
function expectWaitBound(s: AdmissionScenario, admissions: ReturnType<typeof simulateAdmissions>['admissions']) {
  const W = totalWeight(s);
  const waited = new Map(s.owners.map((o) => [o.id, 0]));
  for (const { owner, eligible } of admissions) {
    for (const other of eligible) {
      if (other !== owner) waited.set(other, (waited.get(other) ?? 0) + 1);
    }
    for (const o of s.owners) if (!eligible.includes(o.id)) waited.set(o.id, 0);
    waited.set(owner, 0);
    for (const o of s.owners) expect(waited.get(o.id) ?? 0).toBeLessThanOrEqual(W - o.rule.weight);
  }
}

describe('planAdmissions with weights and caps (property)', () => {
  it('gives every backlogged owner exactly its weight in every window of one round (proportions)', () => {
    fc.assert(
      fc.property(uncapped, (s) => {
        const owners = simulateAdmissions(s).admissions.map((a) => a.owner);
        const W = totalWeight(s);
        for (let start = 0; start + W <= owners.length; start += 1) {
          const window = owners.slice(start, start + W);
          for (const o of s.owners) expect(window.filter((x) => x === o.id).length).toBe(o.rule.weight);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never lets a backlogged owner wait more than one round (others admitted ≤ total weight − own weight)', () => {
    fc.assert(
      fc.property(uncapped, (s) => expectWaitBound(s, simulateAdmissions(s).admissions)),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(capped, (s) => expectWaitBound(s, simulateAdmissions(s).admissions)),
      { numRuns: 300 },
    );
  });

  it('never exceeds an owner cap, and leaves a slot free only when every owner is at its cap (nobody blocks)', () => {
    fc.assert(
      fc.property(capped, (s) => {
        const policy = scenarioPolicy(s);
        for (const { free, active } of simulateAdmissions(s).afterPass) {
          const caps = s.owners.map((o) => ownerCap(policy, o.id, s.capacity));
          s.owners.forEach((o, i) => {
            expect(active.get(o.id) ?? 0).toBeLessThanOrEqual(caps[i] ?? 0);
          });
          if (free > 0) {
            s.owners.forEach((o, i) => {
              expect(active.get(o.id) ?? 0).toBe(caps[i]);
            });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps slots for others: one owner alone holds at most activeJobs − reservedForOthers', () => {
    fc.assert(
      fc.property(capped, (s) => {
        const limit = s.reservedForOthers > 0 ? s.capacity - s.reservedForOthers : s.capacity;
        for (const { active } of simulateAdmissions(s).afterPass) {
          for (const count of active.values()) expect(count).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 200 },
    );
  });
});
