import type {
  AdmitArgs,
  AdmittedJob,
  ClaimArgs,
  ClaimedJobs,
  ConversationId,
  ConversationState,
  EnqueueRequestsArgs,
  Job,
  JobFilter,
  JobId,
  JobView,
  OwnerId,
  PublishWindow,
  RenewLeaseArgs,
  RespondToJobArgs,
  SeqPage,
  SeqPageRequest,
  TeamId,
  TransitionOutcome,
  UpdateJobOptions,
} from '@agent-teams/core';
import * as admission from './admission.js';
import { asAdmitted, failedRide, type RideOutcome, rideAdmission } from './admission-ride.js';
import * as changeWaits from './change-waits.js';
import { sendEnqueue } from './enqueue-requests.js';
import * as jobLeases from './job-leases.js';
import * as jobReads from './job-reads.js';
import * as jobWrites from './job-writes.js';
import { KyselyTeamRoles } from './kysely-store-team-roles.js';
import { RiddenAdmissionFailedError } from './ridden-admission-failure.js';
import { runWrite } from './write-transaction.js';

/** The job roles of the Kysely store: `JobWrites`, `JobReads`, `Admission` and `Leases`. */
export class KyselyJobRoles extends KyselyTeamRoles {
  // ---- JobWrites ----------------------------------------------------------------------------

  async enqueueRequests(args: EnqueueRequestsArgs): Promise<readonly Job[]> {
    // The scheduler's admission may ride this transaction (decision 0223): prepared before it, so
    // nothing inside waits on the catalog.
    const ride = (await this.ctx.admission?.()?.prepare(args.now)) ?? null;
    let outcome: RideOutcome | null = null;
    // Set once a write the ride left failed (PostgreSQL, decision 0254): that failure rolled the
    // enqueue back too, so it runs again alone (a pass admits its jobs), and the scheduler hears of
    // the ride's failure after that commit, as of a ride rolled back to its savepoint.
    let rideFailed: RideOutcome | null = null;
    // A unique violation on the idempotency index means another server inserted the twin first:
    // the retry's snapshot shows it as `existing`, so `decide` returns it.
    // The jobs answered are read once the write committed: on PostgreSQL the inserts are sent and
    // left, the ride's first statements or the COMMIT follow them, and their answers come with
    // that round trip's (decision 0257).
    const answer = await runWrite(
      this.ctx,
      args.now,
      async (scope) => {
        outcome = rideFailed;
        const sent = await sendEnqueue(scope, args);
        // Only while a job waits for a slot (an idempotent replay of a started request: none).
        if (ride === null || rideFailed !== null || !ride.active() || !sent.queued) return () => sent.answered();
        const ridden = await rideAdmission(scope, ride, sent.inserted);
        outcome = ridden;
        return () => asAdmitted(sent.answered(), ridden);
      },
      {
        retryOnUniqueViolation: true,
        retryIf: (error) => {
          if (!(error instanceof RiddenAdmissionFailedError)) return false;
          rideFailed = failedRide(error.cause, this.ctx.dialect);
          return true;
        },
        ...(ride === null
          ? {}
          : {
              around: {
                committed: () => {
                  if (outcome !== null) ride.committed(outcome);
                },
                published: () => {
                  if (outcome !== null) ride.published();
                },
              },
            }),
      },
    );
    return answer();
  }

  updateJob(
    jobId: JobId,
    decide: (job: Job) => TransitionOutcome,
    opts: UpdateJobOptions,
  ): Promise<{ job: Job; changed: boolean }> {
    // A write without a lease is a person's or a tool's (cancel, interrupt): not decided on the
    // run's announced end, so a lost ride (`run-rides.ts`) is retried away instead of surfacing.
    // The scheduler's writes are decided on it: theirs propagates, and the step polls again.
    return runWrite(this.ctx, opts.now, (scope) => jobWrites.updateJob(scope, jobId, decide, opts.owner, opts.lease), {
      retryOnLostRide: opts.lease === undefined,
      ...aroundOf(opts.publishing),
    });
  }

  respondToJob(args: RespondToJobArgs): Promise<{ job: Job; replayed: boolean }> {
    return runWrite(this.ctx, args.now, (scope) => jobWrites.respondToJob(scope, args));
  }

  // ---- JobReads -----------------------------------------------------------------------------

  findJob(owner: OwnerId, jobId: JobId): Promise<Job | null> {
    return jobReads.findJob(this.ctx.db, owner, jobId);
  }

  findJobs(jobIds: readonly JobId[]): Promise<readonly Job[]> {
    return jobReads.findJobs(this.ctx.db, jobIds);
  }

  findJobViews(jobIds: readonly JobId[]): Promise<readonly JobView[]> {
    return jobReads.findJobViews(this.ctx.db, jobIds);
  }

  listJobs(
    teamId: TeamId,
    filter: JobFilter,
    page: SeqPageRequest,
  ): Promise<SeqPage<JobView> & { totalCount: number }> {
    return jobReads.listJobs(this.ctx.db, teamId, filter, page);
  }

  listActiveJobs(): Promise<readonly Job[]> {
    return jobReads.listActiveJobs(this.ctx.db);
  }

  countJobs(teamId: TeamId): Promise<{ readonly requests: number; readonly receipts: number }> {
    return jobReads.countJobs(this.ctx.db, teamId);
  }

  conversationStates(
    conversationIds: readonly ConversationId[],
  ): Promise<ReadonlyMap<ConversationId, ConversationState>> {
    return jobReads.conversationStates(this.ctx.db, conversationIds);
  }

  listWaitingJobs(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<JobView> & { totalCount: number }> {
    return jobReads.listWaitingJobs(this.ctx.db, owner, page);
  }

  // ---- Admission and Leases -----------------------------------------------------------------

  async admit(args: AdmitArgs): Promise<readonly AdmittedJob[]> {
    // The unlocked check saves an idle pass its lock and commit; a pass that expects work skips it.
    if (args.likelyQueued !== true && !(await admission.admissionMayChange(this.ctx.db, args.now))) return [];
    return runWrite(this.ctx, args.now, (scope) => admission.admit(scope, args), {
      retryOnUniqueViolation: true,
      ...aroundOf(args.publishing),
    });
  }

  nextWaitDeadline(): Promise<string | null> {
    return changeWaits.nextWaitDeadline(this.ctx.db);
  }

  renewServerLease(args: RenewLeaseArgs): Promise<void> {
    return runWrite(this.ctx, args.now, (scope) => jobLeases.renewServerLease(scope, args));
  }

  async claimActiveJobs(args: ClaimArgs): Promise<ClaimedJobs> {
    // Alone and taken over: what it holds is a plain read (no write lock, no commit).
    if (args.heldOnly === true)
      return { held: await jobLeases.heldActiveJobs(this.ctx.db, args.serverId), takenOver: [] };
    // Nothing orphaned (most passes of a server sharing its database): the held jobs, read alone.
    if (args.takeOver !== true) {
      const held = await jobLeases.heldUnlessOrphaned(this.ctx.db, args.serverId, args.nowMs);
      if (held !== null) return { held, takenOver: [] };
    }
    // No caller's `now` here: a claim writes no timestamp, only the holder and the fence.
    return runWrite(this.ctx, new Date(args.nowMs).toISOString(), (scope) => jobLeases.claimActiveJobs(scope, args));
  }

  releaseServerLeases(serverId: string): Promise<void> {
    return runWrite(this.ctx, new Date(0).toISOString(), (scope) => jobLeases.releaseServerLeases(scope, serverId));
  }
}

/** `runWrite`'s hooks around the publication, from a caller's {@link PublishWindow}. */
function aroundOf(window: PublishWindow | undefined) {
  return window === undefined ? {} : { around: { committed: () => window.opened(), published: () => window.closed() } };
}
