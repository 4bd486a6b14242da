import {
  ACTIVE_PHASES,
  type AdmissionPlan,
  type AdmissionSnapshot,
  type AdmittedJob,
  type ConversationId,
  type EnqueueDecision,
  type EnqueueSnapshot,
  type FreezeContext,
  type Job,
  type JobEffect,
  type JobId,
  JobKind,
  Limits,
  type MemberId,
  type Team,
  type TransitionOutcome,
  truncateUtf8,
} from '@agent-teams/core';
import { admissionCandidates, receiptJob, requestJob, sameJob } from './memory-store-jobs.js';
import { leaseJob } from './memory-store-leases.js';
import type { MemoryStoreState, TeamWrite } from './memory-store-state.js';
import { teamOf } from './memory-store-team-writes.js';

/** Arguments of `TeamStore.enqueueRequests` once the team is known to be the owner's. */
export interface EnqueueArgs {
  readonly keys: readonly { requesterConversationId: ConversationId | null; clientKey: string; memberId: MemberId }[];
  readonly roots: readonly JobId[];
  readonly now: string;
  readonly decide: (snapshot: EnqueueSnapshot) => EnqueueDecision;
}

/** `TeamStore.enqueueRequests`: snapshot, decide, insert jobs with their REQUEST records. */
export function enqueueIn(state: MemoryStoreState, team: Team, args: EnqueueArgs): readonly Job[] {
  const requests = [...state.jobs.values()].filter((j) => j.teamId === team.id && j.kind === JobKind.REQUEST);
  const existing = requests.filter((j) =>
    args.keys.some(
      (k) =>
        k.clientKey === j.clientKey &&
        k.memberId === j.memberId &&
        k.requesterConversationId === j.requester.conversationId,
    ),
  );
  const chainCounts = new Map(args.roots.map((root) => [root, requests.filter((j) => j.rootId === root).length]));
  const decision = args.decide({ team, existing, requestCount: requests.length, chainCounts });
  const write = state.write(team.id, args.now);
  for (const request of decision.insert) {
    state.jobSeq += 1;
    const job = requestJob(request, team, state.jobSeq, args.now);
    state.jobs.set(job.id, job);
    write.event('JOB_CHANGED', { jobId: job.id });
    write.event('MEMBER_CHANGED', { memberId: request.memberId });
    // The record keeps at most 6,000 bytes of the task; the job keeps all of it.
    const cut = truncateUtf8(request.text, Limits.historyTextBytes);
    const { recordId: id, memberId, requester } = request;
    write.appendRecord(
      { id, jobId: job.id, memberId, fromMemberId: requester.memberId, text: cut.text, truncated: cut.truncated },
      'REQUEST',
    );
  }
  state.commit(write);
  return decision.resultIds.map((id) => {
    const job = state.jobs.get(id);
    if (job === undefined) throw new Error(`[agent-teams/testkit] enqueue decided an unknown job ${id}`);
    return job;
  });
}

/** True when the request already has a receipt, or the receipt id is taken (unique keys in SQL). */
function hasReceipt(state: MemoryStoreState, requestId: JobId, receiptId: JobId): boolean {
  if (state.jobs.has(receiptId)) return true;
  return [...state.jobs.values()].some((j) => j.kind === JobKind.RECEIPT && j.parentId === requestId);
}

function persistEffect(state: MemoryStoreState, write: TeamWrite, job: Job, effect: JobEffect): void {
  if (effect.type === 'APPEND_RECORD') {
    const { kind, memberId, fromMemberId, text, truncated } = effect;
    write.appendRecord({ id: state.ids.recordId(), jobId: job.id, memberId, fromMemberId, text, truncated }, kind);
  } else if (effect.type === 'CREATE_RECEIPT') {
    state.jobSeq += 1;
    const receipt = receiptJob(effect.receipt, job, state.jobSeq, write.now);
    state.jobs.set(receipt.id, receipt);
    write.event('JOB_CHANGED', { jobId: receipt.id });
    if (receipt.memberId !== null) write.event('MEMBER_CHANGED', { memberId: receipt.memberId });
  }
}

/** Persists one transition with its persistent effects (record, receipt) and events. */
export function applyIn(
  state: MemoryStoreState,
  before: Job,
  outcome: Extract<TransitionOutcome, { ok: true }>,
  now: string,
): { job: Job; changed: boolean } {
  if (sameJob(before, outcome.job)) return { job: before, changed: false };
  // Checked before any write, so a refused step leaves nothing behind (a database would roll back).
  for (const effect of outcome.effects) {
    if (effect.type === 'CREATE_RECEIPT' && hasReceipt(state, before.id, effect.receipt.id)) {
      throw new Error(`[agent-teams/testkit] request ${before.id} already has its receipt`);
    }
  }
  const job: Job = { ...outcome.job, updatedAt: now };
  state.jobs.set(job.id, job);
  const write = state.write(job.teamId, now);
  write.event('JOB_CHANGED', { jobId: job.id });
  if (job.memberId !== null && job.phase !== before.phase) write.event('MEMBER_CHANGED', { memberId: job.memberId });
  for (const effect of outcome.effects) persistEffect(state, write, job, effect);
  state.commit(write);
  return { job, changed: true };
}

/** Arguments of `TeamStore.admit`. */
export interface AdmitArgs {
  readonly now: string;
  readonly serverId?: string;
  readonly plan: (snapshot: AdmissionSnapshot) => AdmissionPlan;
  readonly freeze: (ctx: FreezeContext) => TransitionOutcome;
}

/** `TeamStore.admit`: one planning pass; persists the round state and freezes each admitted job. */
export function admitIn(state: MemoryStoreState, args: AdmitArgs): AdmittedJob[] {
  const active = [...state.jobs.values()].filter((j) => ACTIVE_PHASES.includes(j.phase)).length;
  const candidates = admissionCandidates(
    state.jobs.values(),
    (job) => state.teams.get(job.teamId)?.team.status ?? null,
  );
  const plan = args.plan({ active, candidates, round: state.round, capacity: Limits.activeJobs });
  state.round = plan.round;
  const eligible = new Set(candidates.map((c) => c.jobId));
  const admitted: AdmittedJob[] = [];
  // The planner is trusted for fairness, not for safety: never exceed the slots or admit twice.
  for (const jobId of plan.admit.slice(0, Math.max(0, Limits.activeJobs - active))) {
    const job = state.jobs.get(jobId);
    if (job === undefined || !eligible.delete(jobId)) continue;
    const team = teamOf(state, job.teamId);
    const members = state.rosters.get(team.id) ?? [];
    const recentRecords = (state.records.get(team.id) ?? []).slice(-Limits.contextMessages);
    const outcome = args.freeze({ job, team, members, recentRecords });
    if (!outcome.ok) continue;
    const applied = applyIn(state, job, outcome, args.now);
    const lease = args.serverId === undefined ? undefined : leaseJob(state, jobId, args.serverId);
    admitted.push({ job: applied.job, lease });
  }
  return admitted;
}
