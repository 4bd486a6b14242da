import {
  broadcastReceipt,
  type EnqueueRequestsArgs,
  isAnswerReplay,
  isBroadcastRequest,
  isTerminal,
  type Job,
  type JobEffect,
  type JobId,
  JobKind,
  type JobWrites,
  Limits,
  notFound,
  type Team,
  type TransitionOutcome,
  truncateUtf8,
} from '@agent-teams/core';
import { receiptJob, requestJob, sameJob } from './job-reads.js';
import { checkLeaseIn } from './leases.js';
import { keepFollowUpIn } from './mailbox.js';
import { type MemoryStoreState, type TeamWrite, withinWindow } from './state.js';
import { teamNotFound } from './team-writes.js';

/** `TeamStore.enqueueRequests`: snapshot, decide, insert jobs with their REQUEST records. */
function enqueueIn(state: MemoryStoreState, team: Team, args: EnqueueRequestsArgs): readonly Job[] {
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
  const members = args.withMembers === true ? { members: [...(state.rosters.get(team.id) ?? [])] } : {};
  const decision = args.decide({ team, existing, requestCount: requests.length, chainCounts, ...members });
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

/** Adds a broadcast's one receipt when `job` was its last unfinished request (see the SQL store). */
function completeBroadcastIn(state: MemoryStoreState, write: TeamWrite, job: Job): void {
  if (!isBroadcastRequest(job) || !isTerminal(job.phase)) return;
  const requests = [...state.jobs.values()].filter(
    (j) =>
      j.teamId === job.teamId &&
      j.kind === JobKind.REQUEST &&
      j.clientKey === job.clientKey &&
      j.requester.conversationId === job.requester.conversationId,
  );
  const receipt = broadcastReceipt(requests, state.rosters.get(job.teamId) ?? [], write.now);
  if (receipt === null || state.jobs.has(receipt.id)) return;
  state.jobSeq += 1;
  state.jobs.set(receipt.id, { ...receipt, seq: state.jobSeq });
  write.event('JOB_CHANGED', { jobId: receipt.id });
  if (receipt.memberId !== null) write.event('MEMBER_CHANGED', { memberId: receipt.memberId });
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
  completeBroadcastIn(state, write, job);
  keepFollowUpIn(state, write, before, job);
  state.commit(write);
  return { job, changed: true };
}

/** The in-memory {@link JobWrites}: each method reads and writes synchronously, so it is atomic. */
export function memoryJobWrites(state: MemoryStoreState): JobWrites {
  return {
    async enqueueRequests(args) {
      // Read synchronously: an await here would let another call interleave inside the "transaction".
      const team = state.teams.get(args.teamId)?.team;
      if (team === undefined || team.owner !== args.owner) throw teamNotFound();
      return enqueueIn(state, team, args);
    },
    async updateJob(jobId, decide, opts) {
      const job = state.jobs.get(jobId);
      if (job === undefined || (opts.owner !== undefined && job.owner !== opts.owner)) {
        throw notFound('job');
      }
      if (opts.lease !== undefined) checkLeaseIn(state, jobId, opts.lease);
      const outcome = decide(job);
      if (!outcome.ok) throw outcome.error;
      return withinWindow(opts.publishing, () => applyIn(state, job, outcome, opts.now));
    },
    async respondToJob(args) {
      const job = state.jobs.get(args.jobId);
      if (job === undefined || job.owner !== args.owner) {
        throw notFound('job');
      }
      const key = `${args.jobId}\u0000${args.clientRequestId}`;
      if (isAnswerReplay(state.responses.get(key)?.fingerprint, args.fingerprint)) return { job, replayed: true };
      const outcome = args.decide(job);
      if (!outcome.ok) throw outcome.error;
      const applied = applyIn(state, job, outcome, args.now);
      state.responses.set(key, { teamId: job.teamId, fingerprint: args.fingerprint });
      return { job: applied.job, replayed: false };
    },
  };
}
