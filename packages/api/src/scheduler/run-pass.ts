import { type AdmittedJob, type Job, type JobId, type TeamReads, TeamStatus } from '@agent-teams/core';
import type { AdmissionPass } from './admission-pass.js';
import type { JobDriver } from './job-driver.js';
import type { ServerLease } from './server-lease.js';

/** What one pass works with. */
export interface PassContext {
  readonly store: Pick<TeamReads, 'findTeams'>;
  readonly lease: ServerLease;
  readonly admission: AdmissionPass;
  readonly driver: JobDriver;
  /** The active jobs this server holds, by id: replaced by each pass. */
  readonly driven: Map<JobId, Job>;
  /**
   * The jobs started since the last claim, by a pass's admission or by one that rode an enqueue
   * (decision 0223), as started: already driven, so the next claim does not drive them again
   * while their phase is unchanged (a changed one, a cancel say, is driven), then forgets them.
   */
  readonly started: Map<JobId, Job>;
  /**
   * True when the pass must admit. Only this server's own changes and the timers can make
   * admission necessary (whatever adds a waiting job or frees a slot wakes the server that wrote
   * it); another server's change only needs the claim, which also picks up leases it released.
   */
  readonly full: boolean;
  /** True when a local commit changed a job this server does not drive: admission likely has work. */
  readonly likelyQueued: boolean;
  /** True once the scheduler is stopping: nothing more is started. */
  readonly stopped: () => boolean;
}

/**
 * One scheduler pass: renew the lease if due, admit (full passes), start what was just admitted,
 * claim what no live server holds, and make sure every held job is being driven.
 *
 * @remarks A job of a DISCONNECTED team keeps its state until the team is reconnected. A nudge
 * (not full) drives only what it newly holds; jobs held already move on their own signals.
 */
export async function runPass(pass: PassContext): Promise<void> {
  const { lease, driver, driven, started } = pass;
  await lease.renewIfDue();
  const admitted = pass.full ? await pass.admission.admit(pass.likelyQueued) : [];
  if (pass.stopped()) return;
  // Start what was just admitted at once, without waiting for the claim's round trips.
  startAdmitted(pass, admitted);
  try {
    const before = new Set(driven.keys());
    // Alone and taken over: a held job neither driven nor started here yet is one whose ridden
    // admission is still between its COMMIT and its start (with group commit, while the log syncs);
    // that ride starts it once the commit is durable, so this claim must not (decision 0223).
    const alone = lease.takenOver;
    const active = (await lease.claim()).map((entry) => entry.job);
    const teamIds = [...new Set(active.map((job) => job.teamId))];
    const teams = teamIds.length === 0 ? [] : await pass.store.findTeams(teamIds);
    const disconnected = new Set(
      teams.filter((team) => team.status === TeamStatus.DISCONNECTED).map((team) => team.id),
    );
    driven.clear();
    for (const job of active) driven.set(job.id, job);
    // Started after the claim read (an admission that rode an enqueue meanwhile): still driven here.
    for (const [jobId, job] of started) if (!driven.has(jobId) && lease.holds(jobId)) driven.set(jobId, job);
    for (const job of active) {
      // Started since the last claim and unchanged since: its first step is on its way. Changed
      // (its first step ran, a person cancelled it), or its first step already over (it failed
      // and backs off: the retry's timer woke this pass): driven like any held job.
      const start = started.get(job.id);
      const unchanged = start !== undefined && start.phase === job.phase && driver.stepping(job.id);
      if (unchanged || disconnected.has(job.teamId) || (alone && !before.has(job.id))) continue;
      if (pass.full || !before.has(job.id)) driver.request(job);
    }
    // Covered by this claim: a later pass drives them like any other held job.
    started.clear();
  } finally {
    // Last: on SQLite every statement runs on the event loop, so a read here before the claim
    // would sit between the admission's commit and the first step of the jobs it admitted.
    if (pass.full) await pass.admission.followWaits();
  }
}

/**
 * Starts jobs this server's admission just leased to it (a pass's own, or one that rode an
 * enqueue): holds their leases, counts them driven and asks for their first step at once.
 */
export function startAdmitted(
  pass: Pick<PassContext, 'lease' | 'driver' | 'driven' | 'started'>,
  admitted: readonly AdmittedJob[],
): void {
  for (const { job, lease } of admitted) {
    if (lease === undefined) continue;
    pass.lease.hold({ job, lease });
    pass.driven.set(job.id, job);
    pass.started.set(job.id, job);
    pass.driver.request(job, true);
  }
}
