import { performance } from 'node:perf_hooks';
import {
  type AdmissionCandidate,
  type AdmissionPolicy,
  asConversationId,
  asJobId,
  asOwnerId,
  asTeamId,
  DEFAULT_ADMISSION_POLICY,
  EMPTY_ROUND,
  type OwnerId,
  planAdmissions,
  type RoundState,
} from '@agent-teams/core';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, summarize } from './harness/stats.js';

const SIZES = {
  full: { owners: 100, perOwner: 20, passes: 400, warmup: 40 },
  tiny: { owners: 10, perOwner: 4, passes: 5, warmup: 1 },
} as const;

/** A deterministic pseudo-random sequence (the same owners' weights and caps every run). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

interface Variant {
  readonly label: string;
  readonly policy: AdmissionPolicy;
  readonly capacity: number;
}

/**
 * The pure planner's cost per pass (`planAdmissions`, the part of `store.admit` the fairness rule
 * adds to): 100 backlogged owners with weights 1–100, with and without per-owner caps, at the
 * default 8 slots and at 1,000 slots, every slot free at the start of each pass.
 */
export const admissionPlanner: Benchmark = {
  name: 'admission-planner',
  title: 'Admission planner: one pass over 100 owners with weights, with and without caps',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const random = lcg(42);
    const owners: OwnerId[] = Array.from({ length: size.owners }, (_, i) => asOwnerId(`owner_${i}`));
    const weighted = new Map(owners.map((o) => [o, { maxActive: null, weight: 1 + Math.floor(random() * 100) }]));
    const capped = new Map(
      owners.map((o) => [o, { maxActive: 1 + Math.floor(random() * 5), weight: weighted.get(o)?.weight ?? 1 }]),
    );
    const candidates: AdmissionCandidate[] = owners.flatMap((owner, rank) =>
      Array.from({ length: size.perOwner }, (_, j) => ({
        jobId: asJobId(`${owner}_${j}`),
        owner,
        teamId: asTeamId(`team_${owner}`),
        conversationId: asConversationId(`${owner}/${j}`),
        seq: j * size.owners + rank,
      })),
    );
    const activeByOwner = new Map(owners.filter((_, i) => i % 2 === 0).map((o) => [o, 1]));
    const variants: Variant[] = [];
    for (const capacity of [8, 1_000]) {
      const base = { ...DEFAULT_ADMISSION_POLICY, activeJobs: capacity };
      variants.push(
        { label: `weight 1, no caps, ${capacity} slots`, capacity, policy: { ...base, reservedForOthers: 0 } },
        {
          label: `weights 1–100, no caps, ${capacity} slots`,
          capacity,
          policy: { ...base, reservedForOthers: 0, owners: weighted },
        },
        {
          label: `weights 1–100, maxActive 1–5 + 2 kept, ${capacity} slots`,
          capacity,
          policy: { ...base, owners: capped },
        },
      );
    }
    const rows: string[][] = [];
    const metrics: Record<string, number> = {};
    for (const variant of variants) {
      // At 8 slots all are free; at 1,000 half the owners already run one job each (caps bite at once).
      const running = variant.capacity > 8 ? activeByOwner : new Map<OwnerId, number>();
      const active = [...running.values()].reduce((a, b) => a + b, 0);
      let round: RoundState = EMPTY_ROUND;
      const samples: number[] = [];
      let admitted = 0;
      for (let i = 0; i < size.warmup + size.passes; i += 1) {
        const snapshot = {
          active: Math.min(active, variant.capacity - 1),
          activeByOwner,
          capacity: variant.capacity,
          candidates,
          round,
        };
        const start = performance.now();
        const plan = planAdmissions(snapshot, variant.policy);
        const took = performance.now() - start;
        round = plan.round; // the round carries over, as in production
        if (i >= size.warmup) {
          samples.push(took);
          admitted = plan.admit.length;
        }
      }
      const s = summarize(samples);
      rows.push([variant.label, String(candidates.length), String(admitted), ms(s.p50), ms(s.p90), ms(s.max)]);
      metrics[`${variant.label} p50Ms`] = s.p50;
    }
    ctx.log(`admission planner: ${rows.length} variants`);
    return {
      tables: [{ header: ['variant', 'candidates', 'admitted per pass', 'p50', 'p90', 'max'], rows }],
      method: [
        `${size.owners} owners × ${size.perOwner} queued jobs (one conversation each); at 1,000 slots half the owners already run one job.`,
        `Each variant: ${size.warmup} warm-up passes, then ${size.passes} timed passes of \`planAdmissions\` alone (no database), the round state carried from pass to pass.`,
        'Weights and caps are fixed pseudo-random draws (seed 42). The database part of a pass is in "Planning pass" above.',
      ],
      metrics,
    };
  },
};
