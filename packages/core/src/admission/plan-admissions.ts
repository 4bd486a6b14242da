import type { ConversationId, JobId, OwnerId } from '../model/ids.js';
import { type AdmissionPolicy, ownerAdmission, ownerCap, UNRESTRICTED_ADMISSION_POLICY } from './admission-policy.js';
import {
  type AdmissionCandidate,
  type AdmissionPlan,
  type AdmissionSnapshot,
  EMPTY_ROUND,
  type RoundState,
} from './admission-types.js';

/**
 * Each owner's candidates, oldest first, with at most one per conversation (the oldest): a
 * conversation runs one turn at a time, so a second admission there would only queue behind it.
 */
function queuesByOwner(candidates: readonly AdmissionCandidate[]): Map<OwnerId, AdmissionCandidate[]> {
  const sorted = [...candidates].sort((a, b) => a.seq - b.seq);
  const seenConversations = new Set<ConversationId>();
  const seenJobs = new Set<JobId>();
  const queues = new Map<OwnerId, AdmissionCandidate[]>();
  for (const candidate of sorted) {
    if (seenConversations.has(candidate.conversationId) || seenJobs.has(candidate.jobId)) continue;
    seenConversations.add(candidate.conversationId);
    seenJobs.add(candidate.jobId);
    const queue = queues.get(candidate.owner);
    if (queue === undefined) queues.set(candidate.owner, [candidate]);
    else queue.push(candidate);
  }
  return queues;
}

/**
 * The rotation for this pass: owners still waiting keep their place, owners with nothing to admit
 * drop out (so an idle owner never holds a turn), and newcomers join at the tail in the order of
 * their oldest candidate. An owner who comes back later is a newcomer again.
 */
function nextRotation(previous: readonly OwnerId[], queues: Map<OwnerId, AdmissionCandidate[]>): OwnerId[] {
  const kept = [...new Set(previous)].filter((owner) => queues.has(owner));
  const known = new Set(kept);
  const joining = [...queues.entries()]
    .filter(([owner]) => !known.has(owner))
    .sort(([, a], [, b]) => (a[0]?.seq ?? 0) - (b[0]?.seq ?? 0))
    .map(([owner]) => owner);
  return [...kept, ...joining];
}

/** Admissions per owner in the carried-over round, for owners still in the rotation. */
function servedCounts(served: readonly OwnerId[], rotation: readonly OwnerId[]): Map<OwnerId, number> {
  const counts = new Map<OwnerId, number>(rotation.map((owner) => [owner, 0]));
  for (const owner of served) {
    const count = counts.get(owner);
    if (count !== undefined) counts.set(owner, count + 1);
  }
  return counts;
}

/**
 * One fair admission pass, pure: fills the free slots (capacity − active; running jobs are never
 * preempted) by interleaved weighted round-robin over owners, each owner's oldest candidate first.
 *
 * @remarks A round gives every owner in the rotation `weight` admissions. Each admission goes to
 * the owner with the fewest turns so far in the round among those with turns left, ties in
 * rotation order, so the shares interleave (weights 3 and 1: A B A A). An owner at its cap (its
 * `maxActive`, or `capacity − reservedForOthers`) loses the turns that come while it is there:
 * its jobs stay queued and block nobody, and once below its cap it waits at most one round like
 * everyone else. Spare slots go to whoever still may take them: a round ends early when no
 * owner that may take a slot has turns left, and a new one starts. The unfinished round carries
 * over, so fairness holds across passes. Without a policy: weight 1 for all, no caps.
 * Cost: O(free × owners) per pass (two scans of the rotation per admission).
 */
export function planAdmissions(
  snapshot: AdmissionSnapshot,
  policy: AdmissionPolicy = UNRESTRICTED_ADMISSION_POLICY,
): AdmissionPlan {
  const queues = queuesByOwner(snapshot.candidates);
  const rotation = nextRotation(snapshot.round.rotation, queues);
  const counts = servedCounts(snapshot.round.served, rotation);
  const weight = new Map(rotation.map((owner) => [owner, ownerAdmission(policy, owner).weight]));
  const room = new Map(
    rotation.map((owner) => [
      owner,
      ownerCap(policy, owner, snapshot.capacity) - (snapshot.activeByOwner?.get(owner) ?? 0),
    ]),
  );
  let free = Math.max(0, snapshot.capacity - snapshot.active);
  const admit: JobId[] = [];

  /**
   * The next owner to serve, or null when nobody may take a slot. An owner whose turn comes while
   * it is at its cap loses that turn, as if served: the sequence of turns taken and lost is the
   * plain interleaved round, which is where the one-round wait bound comes from.
   */
  const next = (): OwnerId | null => {
    for (;;) {
      let best: OwnerId | undefined;
      let bestCount = Number.POSITIVE_INFINITY;
      let bestIndex = -1;
      let anyone = false;
      rotation.forEach((owner, index) => {
        if ((queues.get(owner)?.length ?? 0) === 0 || (room.get(owner) ?? 0) <= 0) return;
        anyone = true;
        const count = counts.get(owner) ?? 0;
        if (count < (weight.get(owner) ?? 1) && count < bestCount) {
          best = owner;
          bestCount = count;
          bestIndex = index;
        }
      });
      if (!anyone) return null;
      if (best === undefined) {
        // Every owner that may take a slot had all its turns this round: start the next round
        // (owners at their cap lose what was left of theirs).
        for (const key of counts.keys()) counts.set(key, 0);
        continue;
      }
      // Owners at their cap whose turns come before `best` lose them, as if served: in one step
      // what taking those turns one by one would do.
      rotation.forEach((owner, index) => {
        if ((queues.get(owner)?.length ?? 0) === 0 || (room.get(owner) ?? 0) > 0) return;
        const level = Math.min(weight.get(owner) ?? 1, bestCount + (index < bestIndex ? 1 : 0));
        counts.set(owner, Math.max(counts.get(owner) ?? 0, level));
      });
      return best;
    }
  };

  while (free > 0) {
    const owner = next();
    const candidate = owner === null ? undefined : queues.get(owner)?.shift();
    if (owner === null || candidate === undefined) break; // nobody may take a slot
    admit.push(candidate.jobId);
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
    room.set(owner, (room.get(owner) ?? 0) - 1);
    free -= 1;
  }
  const served = rotation.flatMap((owner) => Array<OwnerId>(counts.get(owner) ?? 0).fill(owner));
  return { admit, round: { rotation, served } };
}

/**
 * The round to persist after a pass that planned `plan` over `candidates`. When
 * the plan admits every candidate, the next pass (which the admissions' own events wake) would
 * find nobody waiting and store the empty round, since owners with nothing queued drop out of the
 * rotation: storing it now spares that pass its commit. Any pass order is valid, so this is the
 * same as that pass having run at once.
 */
export function settledRound(plan: AdmissionPlan, candidates: readonly AdmissionCandidate[]): RoundState {
  const admitted = new Set(plan.admit);
  return candidates.every((candidate) => admitted.has(candidate.jobId)) ? EMPTY_ROUND : plan.round;
}
