import { ACTIVE_PHASES, type Admission, type AdmitArgs, type AdmittedJob, Limits } from '@agent-teams/core';
import { admissionCandidates } from './job-reads.js';
import { applyIn } from './job-writes.js';
import { leaseJob } from './leases.js';
import { deliverFrozen, undeliveredIn } from './mailbox.js';
import type { MemoryStoreState } from './state.js';
import { teamOf } from './team-writes.js';

/** `TeamStore.admit`: one planning pass; persists the round state and freezes each admitted job. */
function admitIn(state: MemoryStoreState, args: AdmitArgs): AdmittedJob[] {
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
    const mailbox = job.memberId === null ? [] : undeliveredIn(state, job.memberId);
    const outcome = args.freeze({ job, team, members, recentRecords, mailbox });
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

/** The in-memory {@link Admission}. */
export function memoryAdmission(state: MemoryStoreState): Admission {
  return { admit: async (args) => admitIn(state, args) };
}
