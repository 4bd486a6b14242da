import type { JobId } from '../../model/ids.js';
import type { Job } from '../../model/job.js';

/**
 * The lease a server holds on an active job when several servers share one database: the server
 * incarnation that drives the job and the fencing token. Every claim of the job increments the
 * fence, so a server that lost the job (it was paused or cut off past its lease) can no longer
 * write it.
 */
export interface JobLease {
  readonly serverId: string;
  readonly fence: number;
}

/** An active job with the lease its claiming server now holds on it. */
export interface LeasedJob {
  readonly job: Job;
  readonly lease: JobLease;
}

/** Arguments of {@link Leases.renewServerLease}. */
export interface RenewLeaseArgs {
  readonly serverId: string;
  /** Shown to operators. */
  readonly host: string;
  readonly now: string;
  readonly expiresAtMs: number;
}

/** Arguments of {@link Leases.claimActiveJobs}. */
export interface ClaimArgs {
  readonly serverId: string;
  readonly nowMs: number;
  /** The server knows it is alone on the database: take every active job. */
  readonly takeOver?: boolean;
  /**
   * The server knows no other server can hold a job (it is alone on the database and has taken it
   * over): claim nothing, only answer what it holds (a read, no write transaction).
   */
  readonly heldOnly?: boolean;
}

/** An active job a claim took from its previous holder. */
export interface TakenOverJob {
  readonly jobId: JobId;
  /**
   * The server incarnation that held it: dead, expired or (with `takeOver`) any other; null when
   * none did (its holder released it on a graceful shutdown).
   */
  readonly fromServer: string | null;
}

/** What {@link Leases.claimActiveJobs} answers. */
export interface ClaimedJobs {
  /** Every active job the server holds now, with its lease, in creation order. */
  readonly held: readonly LeasedJob[];
  /**
   * The jobs this claim took over, in creation order (all of them in `held`): empty on a pass
   * that only found its own jobs, so operators can be told only when jobs moved.
   */
  readonly takenOver: readonly TakenOverJob[];
}

/** Store role: the leases of servers sharing one database on the jobs they drive. */
export interface Leases {
  /** Registers or renews a server incarnation's lease until `expiresAtMs` (an upsert). */
  renewServerLease(args: RenewLeaseArgs): Promise<void>;
  /**
   * Claims for `serverId` every active job no live server holds (no holder, or a holder whose
   * server lease is missing or expired at `nowMs`; with `takeOver`, every active job whatever its
   * holder: for a server that knows it is alone on the database), incrementing each claimed job's
   * fence. Rows another server is claiming at the same moment are skipped: they are its.
   * @returns every active job `serverId` holds now, and the ones of those this claim took over
   * with their previous holders.
   */
  claimActiveJobs(args: ClaimArgs): Promise<ClaimedJobs>;
  /**
   * Gives up a server's leases at once (graceful shutdown): its active jobs have no holder any more
   * and its server lease is removed, so any other server claims them at its next pass.
   */
  releaseServerLeases(serverId: string): Promise<void>;
}
