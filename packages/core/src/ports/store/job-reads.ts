import type { ConversationId, JobId, MemberId, OwnerId, TeamId } from '../../model/ids.js';
import type { Job, JobKind, JobStatus, JobView } from '../../model/job.js';
import type { ConversationState } from '../../model/member-status.js';
import type { SeqPage, SeqPageRequest } from './pages.js';

/** Filters of `Team.jobs`. */
export interface JobFilter {
  readonly kind?: JobKind | null;
  /** Absent or null: any status; an empty list matches no job. */
  readonly statuses?: readonly JobStatus[] | null;
  readonly memberId?: MemberId | null;
}

/** Store role: the reads of jobs. */
export interface JobReads {
  /** The owner's job, or null. */
  findJob(owner: OwnerId, jobId: JobId): Promise<Job | null>;
  /** Jobs by id, any owner (batch loading, scheduler). Missing ids are skipped. */
  findJobs(jobIds: readonly JobId[]): Promise<readonly Job[]>;
  /**
   * Jobs by id as {@link findJobs} reads them, but without their frozen inputs ({@link JobView}):
   * for readers that never look at an input (GraphQL's job loader, a handoff's chain walk).
   * Optional: a store without it is read with {@link findJobs} (see `findJobViews` in the core).
   */
  findJobViews?(jobIds: readonly JobId[]): Promise<readonly JobView[]>;
  /**
   * Jobs of a team in creation order (oldest first), filtered, with the filtered total; without
   * their frozen inputs ({@link JobView}: a store may leave them unread).
   */
  listJobs(
    teamId: TeamId,
    filter: JobFilter,
    page: SeqPageRequest,
  ): Promise<SeqPage<JobView> & { readonly totalCount: number }>;
  /** Unfinished jobs that hold or may hold a run (ADMITTING, RUNNING, RESUMING, CANCELLING). */
  listActiveJobs(): Promise<readonly Job[]>;
  /** Numbers of REQUEST and RECEIPT jobs of a team (for `Team.capacity`). */
  countJobs(teamId: TeamId): Promise<{ readonly requests: number; readonly receipts: number }>;
  /** The {@link ConversationState} of each conversation. Feeds the derived member status. */
  conversationStates(
    conversationIds: readonly ConversationId[],
  ): Promise<ReadonlyMap<ConversationId, ConversationState>>;
  /** Jobs waiting for a person, of one owner, oldest first; without their frozen inputs, as {@link listJobs}. */
  listWaitingJobs(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<JobView> & { readonly totalCount: number }>;
}
