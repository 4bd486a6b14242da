import {
  ACTIVE_PHASES,
  type AdmissionCandidate,
  type ConversationId,
  type ConversationState,
  isTerminal,
  type Job,
  type JobFilter,
  JobKind,
  JobPhase,
  type JobReads,
  type NewReceipt,
  type NewRequest,
  queuedReceipt,
  queuedRequest,
  type SeqPageRequest,
  statusOf,
  type Team,
  TeamStatus,
} from '@agent-teams/core';
import { type MemoryStoreState, pageOf } from './state.js';

/** The QUEUED job a {@link NewRequest} becomes, numbered `seq`. */
export function requestJob(request: NewRequest, team: Team, seq: number, now: string): Job {
  return { ...queuedRequest(request, team, now), seq };
}

/** The QUEUED receipt that delivers `request`'s outcome back to its requester, numbered `seq`. */
export function receiptJob(receipt: NewReceipt, request: Job, seq: number, now: string): Job {
  return { ...queuedReceipt(receipt, request, now), seq };
}

/** True when `job` passes the `Team.jobs` filter. */
export function matchesFilter(job: Job, filter: JobFilter): boolean {
  if (filter.kind != null && job.kind !== filter.kind) return false;
  if (filter.memberId != null && job.memberId !== filter.memberId) return false;
  // An empty list of statuses matches no job (`JobFilter`), as it does on the SQL stores.
  if (filter.statuses != null && !filter.statuses.includes(statusOf(job.phase))) return false;
  return true;
}

/** The head (oldest unfinished) job of every conversation that has one. */
export function conversationHeads(jobs: Iterable<Job>): Map<ConversationId, Job> {
  const heads = new Map<ConversationId, Job>();
  for (const job of jobs) {
    if (isTerminal(job.phase)) continue;
    const head = heads.get(job.conversationId);
    if (head === undefined || job.seq < head.seq) heads.set(job.conversationId, job);
  }
  return heads;
}

/**
 * Admission candidates: the head job of every conversation whose head is still QUEUED (nothing
 * ahead of it is running or waiting), in teams that are READY; of these, each owner's oldest
 * `perOwner` (`headsPerOwner`). Woken waits are all offered.
 */
export function admissionCandidates(
  jobs: Iterable<Job>,
  teamStatus: (job: Job) => Team['status'] | null,
  woken: (job: Job) => boolean = () => false,
  perOwner = Number.POSITIVE_INFINITY,
): AdmissionCandidate[] {
  const candidates: AdmissionCandidate[] = [];
  // Oldest first, so each owner's waiting heads are counted in queue order.
  const heads = [...conversationHeads(jobs).values()].sort((a, b) => a.seq - b.seq);
  const offered = new Map<string, number>();
  for (const head of heads) {
    const status = teamStatus(head);
    // A wait ended by a change or its deadline takes a slot like an answered job (decision 0165).
    const wakes = head.phase === JobPhase.WAITING_CHANGE && status === TeamStatus.READY && woken(head);
    const waitsForSlot = head.phase === JobPhase.QUEUED || head.phase === JobPhase.ANSWERED;
    // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
    if (!wakes && (!waitsForSlot || (status !== TeamStatus.READY && status !== TeamStatus.CLOSED))) continue;
    // Each owner's oldest `perOwner` waiting heads, as the SQL store reads them; every woken wait.
    if (!wakes) {
      const n = offered.get(head.owner) ?? 0;
      if (n >= perOwner) continue;
      offered.set(head.owner, n + 1);
    }
    candidates.push({
      jobId: head.id,
      owner: head.owner,
      teamId: head.teamId,
      conversationId: head.conversationId,
      seq: head.seq,
    });
  }
  return candidates.sort((a, b) => a.seq - b.seq);
}

/** Jobs equal in every persisted field (a decide that returned the job unchanged). */
export function sameJob(a: Job, b: Job): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The in-memory {@link JobReads}. */
export function memoryJobReads(state: MemoryStoreState): JobReads {
  const all = () => [...state.jobs.values()];
  const counted = (jobs: readonly Job[], req: SeqPageRequest) => ({
    ...pageOf(
      jobs.filter((j) => req.afterSeq === null || j.seq > req.afterSeq),
      req.first,
    ),
    totalCount: jobs.length,
  });
  return {
    async findJob(owner, jobId) {
      const job = state.jobs.get(jobId);
      return job !== undefined && job.owner === owner ? job : null;
    },
    findJobs: async (jobIds) => jobIds.flatMap((id) => state.jobs.get(id) ?? []),
    listJobs: async (teamId, filter, req) =>
      counted(
        all().filter((j) => j.teamId === teamId && matchesFilter(j, filter)),
        req,
      ),
    listActiveJobs: async () => all().filter((j) => ACTIVE_PHASES.includes(j.phase)),
    async countJobs(teamId) {
      const jobs = all().filter((j) => j.teamId === teamId);
      const requests = jobs.filter((j) => j.kind === JobKind.REQUEST).length;
      return { requests, receipts: jobs.length - requests };
    },
    async conversationStates(conversationIds) {
      const wanted = new Set(conversationIds);
      const jobs = all().filter((j) => wanted.has(j.conversationId));
      const heads = conversationHeads(jobs);
      const states = new Map<ConversationId, ConversationState>();
      for (const id of wanted) {
        const finished = jobs
          .filter((j) => j.conversationId === id && isTerminal(j.phase))
          .sort((a, b) => (a.finishedAt ?? '').localeCompare(b.finishedAt ?? '') || a.seq - b.seq)
          .at(-1);
        states.set(id, { head: heads.get(id)?.phase ?? null, lastFinished: finished?.phase ?? null });
      }
      return states;
    },
    listWaitingJobs: async (owner, req) =>
      counted(
        all().filter((j) => j.owner === owner && j.phase === JobPhase.WAITING_INPUT),
        req,
      ),
  };
}
