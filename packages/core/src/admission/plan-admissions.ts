import type { ConversationId, JobId, OwnerId } from '../model/ids.js';
import type { AdmissionCandidate, AdmissionPlan, AdmissionSnapshot } from './admission-types.js';

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

/**
 * One fair admission pass, pure: fills the free slots (capacity − active; running jobs are never
 * preempted) by round-robin over owners, one job per owner per round, each owner's oldest
 * candidate first. Spare slots go to whoever still has candidates: a round ends early when every
 * owner with work left was served, and a new one starts. The unfinished round carries over, so
 * fairness holds across passes, not just within one.
 */
export function planAdmissions(snapshot: AdmissionSnapshot): AdmissionPlan {
  const queues = queuesByOwner(snapshot.candidates);
  const rotation = nextRotation(snapshot.round.rotation, queues);
  const inRotation = new Set(rotation);
  let served = snapshot.round.served.filter((owner, i, all) => inRotation.has(owner) && all.indexOf(owner) === i);
  let free = Math.max(0, snapshot.capacity - snapshot.active);
  let remaining = [...queues.values()].reduce((sum, queue) => sum + queue.length, 0);
  const admit: JobId[] = [];

  while (free > 0 && remaining > 0) {
    const servedSet = new Set(served);
    let owner = rotation.find((o) => !servedSet.has(o) && (queues.get(o)?.length ?? 0) > 0);
    if (owner === undefined) {
      // Everyone with work left had a turn this round: start the next round.
      served = [];
      owner = rotation.find((o) => (queues.get(o)?.length ?? 0) > 0);
    }
    const candidate = owner === undefined ? undefined : queues.get(owner)?.shift();
    if (owner === undefined || candidate === undefined) break; // unreachable while remaining > 0
    admit.push(candidate.jobId);
    served = [...served, owner];
    free -= 1;
    remaining -= 1;
  }
  return { admit, round: { rotation, served } };
}
