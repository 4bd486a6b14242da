import type { TransitionOutcome } from '../../jobs/job-machine.js';
import type { ConversationId, JobId, MemberId, OwnerId, RecordId, TeamId } from '../../model/ids.js';
import type { Job } from '../../model/job.js';
import type { Member, Team } from '../../model/team.js';
import type { PublishWindow } from '../event-sink.js';
import type { JobLease } from './leases.js';

/**
 * A request job to insert, with the record message that announces it (`rootId` is the new
 * job's own id when it starts a chain).
 */
export interface NewRequest
  extends Pick<Job, 'id' | 'conversationId' | 'requester' | 'parentId' | 'rootId' | 'clientKey' | 'text'> {
  readonly recordId: RecordId;
  readonly memberId: MemberId;
}

/** What the store knows when deciding an enqueue inside its transaction. */
export interface EnqueueSnapshot {
  readonly team: Team;
  /** Existing jobs with the same (requester conversation, clientKey, memberId) keys, if any. */
  readonly existing: readonly Job[];
  /** Number of REQUEST jobs of the team. */
  readonly requestCount: number;
  /** Number of REQUEST jobs per chain root, for the roots of the new requests. */
  readonly chainCounts: ReadonlyMap<JobId, number>;
  /**
   * The team's members in roster order (retired ones included), read under the same lock; only
   * when the enqueue asked for them ({@link EnqueueRequestsArgs.withMembers}).
   */
  readonly members?: readonly Member[];
}

/**
 * The decision of an enqueue: which requests to insert, and which existing jobs answer the
 * idempotent retries. Thrown DomainErrors abort the transaction.
 */
export interface EnqueueDecision {
  readonly insert: readonly NewRequest[];
  /** Result order: for each requested recipient, the job id (new or existing). */
  readonly resultIds: readonly JobId[];
}

/** Arguments of {@link JobWrites.enqueueRequests}. */
export interface EnqueueRequestsArgs {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  readonly keys: readonly { requesterConversationId: ConversationId | null; clientKey: string; memberId: MemberId }[];
  readonly roots: readonly JobId[];
  readonly now: string;
  /**
   * Also read the team's members into the snapshot: a caller that checks its recipients against
   * the roster does it inside the transaction instead of reading the roster before it.
   */
  readonly withMembers?: boolean;
  readonly decide: (snapshot: EnqueueSnapshot) => EnqueueDecision;
}

/** Options of {@link JobWrites.updateJob}. */
export interface UpdateJobOptions {
  readonly now: string;
  /** Scopes the job to this owner (NOT_FOUND for another owner's). */
  readonly owner?: OwnerId;
  /** The scheduler driving the job: the write is fenced by this lease. */
  readonly lease?: JobLease;
  /** Told around the publication of this write's events (none when it wrote nothing). */
  readonly publishing?: PublishWindow;
}

/** Arguments of {@link JobWrites.respondToJob}. */
export interface RespondToJobArgs {
  readonly owner: OwnerId;
  readonly jobId: JobId;
  readonly clientRequestId: string;
  readonly fingerprint: string;
  readonly now: string;
  readonly decide: (job: Job) => TransitionOutcome;
}

/** Store role: the writes of jobs, each one state-machine step in one transaction. */
export interface JobWrites {
  /**
   * Enqueues requests atomically: loads the {@link EnqueueSnapshot} (team locked), calls
   * `decide`, inserts the decided jobs with their REQUEST record messages and events. Throws
   * NOT_FOUND when the team is absent or another owner's, and whatever `decide` throws.
   * @returns the jobs named by `resultIds`, in that order.
   */
  enqueueRequests(args: EnqueueRequestsArgs): Promise<readonly Job[]>;
  /**
   * Applies one state-machine step atomically: loads the job (NOT_FOUND when absent or, if
   * `owner` is given, another owner's), calls `decide` (normally the core's `transition`),
   * persists the next job and the transition's effects (the record message, the receipt),
   * appends events, bumps the revision. A decide that returns the job unchanged writes nothing.
   * With `lease` (the scheduler driving the job), throws STALE_LEASE and writes nothing unless
   * the job is still held by that server with that fence.
   * @returns the next job, and whether anything was written.
   */
  updateJob(
    jobId: JobId,
    decide: (job: Job) => TransitionOutcome,
    opts: UpdateJobOptions,
  ): Promise<{ job: Job; changed: boolean }>;
  /**
   * Records a person's answer atomically, idempotent by (job, `clientRequestId`): when that key
   * was already used on the job, returns the job as it is now (`replayed`) if `fingerprint`
   * matches, or throws IDEMPOTENCY_CONFLICT; otherwise loads the job (NOT_FOUND when absent or
   * another owner's), calls `decide`, persists the outcome as {@link JobWrites.updateJob} does
   * and stores the key with its fingerprint. Whatever `decide` throws or refuses stores nothing.
   */
  respondToJob(args: RespondToJobArgs): Promise<{ job: Job; replayed: boolean }>;
}
