import { type Job, type JobId, type TeamReads, TeamStatus } from '@agent-teams/core';
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
  const { lease, driver, driven } = pass;
  await lease.renewIfDue();
  const admitted = pass.full ? await pass.admission.admit(pass.likelyQueued) : [];
  if (pass.stopped()) return;
  // Start what was just admitted at once, without waiting for the claim's round trips.
  const started = new Set<JobId>();
  for (const entry of admitted) {
    if (entry.lease === undefined) continue;
    lease.hold(entry.job.id, entry.lease);
    driven.set(entry.job.id, entry.job);
    started.add(entry.job.id);
    driver.request(entry.job, true);
  }
  try {
    const before = new Set(driven.keys());
    const active = (await lease.claim()).map((entry) => entry.job);
    const teamIds = [...new Set(active.map((job) => job.teamId))];
    const teams = teamIds.length === 0 ? [] : await pass.store.findTeams(teamIds);
    const disconnected = new Set(
      teams.filter((team) => team.status === TeamStatus.DISCONNECTED).map((team) => team.id),
    );
    driven.clear();
    for (const job of active) driven.set(job.id, job);
    for (const job of active) {
      if (started.has(job.id) || disconnected.has(job.teamId)) continue;
      if (pass.full || !before.has(job.id)) driver.request(job);
    }
  } finally {
    // Last: on SQLite every statement runs on the event loop, so a read here before the claim
    // would sit between the admission's commit and the first step of the jobs it admitted.
    if (pass.full) await pass.admission.followWaits();
  }
}
