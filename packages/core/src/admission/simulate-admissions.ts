import { asConversationId, asJobId, asOwnerId, asTeamId, type OwnerId } from '../model/ids.js';
import { type AdmissionPolicy, type OwnerAdmission, ownerCap } from './admission-policy.js';
import { type AdmissionCandidate, EMPTY_ROUND, type RoundState } from './admission-types.js';
import { planAdmissions } from './plan-admissions.js';

/** One pass of a simulation: how many active jobs finish before it, which ones, how the store lists candidates. */
export interface SimulatedPass {
  readonly finish: number;
  readonly picks: readonly number[];
  readonly shift: number;
}

/** A backlog scenario for the planner's property tests (test support, not exported by the package). */
export interface AdmissionScenario {
  readonly capacity: number;
  readonly reservedForOthers: number;
  /** Owners in join order with their rules. */
  readonly owners: readonly { readonly id: OwnerId; readonly rule: OwnerAdmission }[];
  readonly passes: readonly SimulatedPass[];
}

/** One admission as the simulation saw it. */
export interface SimulatedAdmission {
  readonly owner: OwnerId;
  /** Owners that could have taken the slot (below their cap; everyone is backlogged). */
  readonly eligible: readonly OwnerId[];
}

/** What a simulation observed. */
export interface SimulationLog {
  readonly admissions: readonly SimulatedAdmission[];
  /** Per pass: the free slots left and each owner's active count after it. */
  readonly afterPass: readonly { readonly free: number; readonly active: ReadonlyMap<OwnerId, number> }[];
}

/** The policy of a scenario. */
export function scenarioPolicy(s: AdmissionScenario): AdmissionPolicy {
  return {
    activeJobs: s.capacity,
    reservedForOthers: s.reservedForOthers,
    defaultOwner: { maxActive: null, weight: 1 },
    owners: new Map(s.owners.map((o) => [o.id, o.rule])),
  };
}

/** Owners `owner_0…owner_{n-1}`. */
export function ownerIds(n: number): OwnerId[] {
  return Array.from({ length: n }, (_, i) => asOwnerId(`owner_${i}`));
}

/**
 * Runs the real planner over many passes with unlimited backlogs (every owner has more idle
 * conversations than slots), finishing random active jobs between passes.
 */
export function simulateAdmissions(s: AdmissionScenario): SimulationLog {
  const policy = scenarioPolicy(s);
  const k = s.owners.length;
  const conversations = s.capacity + 1;
  const busy = new Set<string>();
  const nextJob = new Map<string, number>();
  const active: { owner: OwnerId; conv: string }[] = [];
  let round: RoundState = EMPTY_ROUND;
  const admissions: SimulatedAdmission[] = [];
  const afterPass: SimulationLog['afterPass'][number][] = [];
  const countActive = () => {
    const counts = new Map<OwnerId, number>();
    for (const job of active) counts.set(job.owner, (counts.get(job.owner) ?? 0) + 1);
    return counts;
  };

  for (const pass of s.passes) {
    for (let i = 0; i < pass.finish && active.length > 0; i += 1) {
      const [done] = active.splice((pass.picks[i] ?? 0) % active.length, 1);
      if (done !== undefined) busy.delete(done.conv);
    }
    const candidates: AdmissionCandidate[] = [];
    s.owners.forEach(({ id: owner }, rank) => {
      for (let c = 0; c < conversations; c += 1) {
        const conv = `${owner}/${c}`;
        if (busy.has(conv)) continue;
        const n = nextJob.get(conv) ?? 0;
        candidates.push({
          jobId: asJobId(`${conv}/${n}`),
          owner,
          teamId: asTeamId(`team_${owner}`),
          conversationId: asConversationId(conv),
          seq: (n * conversations + c) * k + rank,
        });
      }
    });
    const shift = candidates.length === 0 ? 0 : pass.shift % candidates.length;
    const listed = [...candidates.slice(shift), ...candidates.slice(0, shift)];
    const activeByOwner = countActive();
    const plan = planAdmissions(
      { active: active.length, activeByOwner, capacity: s.capacity, candidates: listed, round },
      policy,
    );
    for (const jobId of plan.admit) {
      const candidate = candidates.find((c) => c.jobId === jobId);
      if (candidate === undefined || busy.has(candidate.conversationId)) throw new Error(`bad admission ${jobId}`);
      const now = countActive();
      const eligible = s.owners.map((o) => o.id).filter((o) => (now.get(o) ?? 0) < ownerCap(policy, o, s.capacity));
      busy.add(candidate.conversationId);
      nextJob.set(candidate.conversationId, (nextJob.get(candidate.conversationId) ?? 0) + 1);
      active.push({ owner: candidate.owner, conv: candidate.conversationId });
      admissions.push({ owner: candidate.owner, eligible });
    }
    round = plan.round;
    afterPass.push({ free: s.capacity - active.length, active: countActive() });
  }
  return { admissions, afterPass };
}
