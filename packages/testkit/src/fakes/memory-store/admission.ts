import {
  ACTIVE_PHASES,
  type Admission,
  type AdmitArgs,
  type AdmittedJob,
  headsPerOwner,
  type Job,
  JobPhase,
  Limits,
  type OwnerId,
  type TeamEvent,
  WAKE_CHANGES_MAX,
  wakesWaiter,
} from '@agent-teams/core';
import { admissionCandidates } from './job-reads.js';
import { applyIn } from './job-writes.js';
import { leaseJob } from './leases.js';
import { deliverFrozen, undeliveredIn } from './mailbox.js';
import { type MemoryStoreState, withinWindow } from './state.js';
import { teamOf } from './team-writes.js';

/** `TeamStore.admit`: one planning pass; persists the round state and freezes each admitted job. */
function admitIn(state: MemoryStoreState, args: AdmitArgs): AdmittedJob[] {
  const now = Date.parse(args.now);
  const woken = (job: Job) =>
    job.wait != null && (Date.parse(job.wait.deadline) <= now || changesFor(state, job).length > 0);
  const activeJobs = [...state.jobs.values()].filter((j) => ACTIVE_PHASES.includes(j.phase));
  const active = activeJobs.length;
  const activeByOwner = new Map<OwnerId, number>();
  for (const job of activeJobs) activeByOwner.set(job.owner, (activeByOwner.get(job.owner) ?? 0) + 1);
  const capacity = args.capacity ?? Limits.activeJobs;
  const candidates = admissionCandidates(
    state.jobs.values(),
    (job) => state.teams.get(job.teamId)?.team.status ?? null,
    woken,
    headsPerOwner(capacity, active),
  );
  const plan = args.plan({ active, activeByOwner, candidates, round: state.round, capacity });
  state.round = plan.round;
  const eligible = new Set(candidates.map((c) => c.jobId));
  const admitted: AdmittedJob[] = [];
  // The planner is trusted for fairness, not for safety: never exceed the slots or admit twice.
  for (const jobId of plan.admit.slice(0, Math.max(0, capacity - active))) {
    const job = state.jobs.get(jobId);
    if (job === undefined || !eligible.delete(jobId)) continue;
    const team = teamOf(state, job.teamId);
    const members = state.rosters.get(team.id) ?? [];
    const recentRecords = (state.records.get(team.id) ?? []).slice(-Limits.contextMessages);
    const mailbox = job.memberId === null ? [] : undeliveredIn(state, job.memberId);
    const changes = job.phase === JobPhase.WAITING_CHANGE ? changesFor(state, job) : undefined;
    const outcome = args.freeze({ job, team, members, recentRecords, mailbox, ...(changes ? { changes } : {}) });
    if (!outcome.ok) continue;
    const applied = applyIn(state, job, outcome, args.now);
    // Synchronous with the freeze above: the delivery and the frozen turn are one step.
    const delivery = state.write(team.id, args.now);
    deliverFrozen(state, delivery, applied.job);
    state.commit(delivery);
    const lease = args.serverId === undefined ? undefined : leaseJob(state, jobId, args.serverId);
    admitted.push({ job: applied.job, lease });
  }
  return admitted;
}

/** The events that wake a waiting job, oldest first, at most one more than a result lists. */
function changesFor(state: MemoryStoreState, job: Job): TeamEvent[] {
  const { wait } = job;
  if (wait == null) return [];
  const waiter = { id: job.id, memberId: job.memberId, wait };
  return (state.events.get(job.teamId) ?? []).filter((e) => wakesWaiter(e, waiter)).slice(0, WAKE_CHANGES_MAX + 1);
}

/** The in-memory {@link Admission}. */
export function memoryAdmission(state: MemoryStoreState): Admission {
  return {
    admit: async (args) => withinWindow(args.publishing, () => admitIn(state, args)),
    async nextWaitDeadline() {
      const deadlines = [...state.jobs.values()].flatMap((j) =>
        j.phase === JobPhase.WAITING_CHANGE && j.wait != null ? [j.wait.deadline] : [],
      );
      return deadlines.length === 0 ? null : ([...deadlines].sort()[0] ?? null);
    },
  };
}
