import type { AdmissionPlan, AdmissionSnapshot } from '../admission/admission-types.js';
import type { JobCommand } from '../jobs/job-commands.js';
import type { TransitionOutcome } from '../jobs/job-machine.js';
import type { AgentId, ConversationId, JobId, MemberId, OwnerId, RecordId, TeamId } from '../model/ids.js';
import type { Job, JobKind, JobPhase, JobStatus, Requester, TurnInput } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team, TeamStatus } from '../model/team.js';
import type { UsageEntry, UsageScope, UsageTotals } from '../model/usage.js';
import type { TeamEvent } from './event-sink.js';

/** One page of a keyset-paginated list. `afterSeq` of the next page is the last item's seq. */
export interface SeqPage<T> {
  readonly items: readonly T[];
  readonly hasNextPage: boolean;
}

/** Keyset page request over a numeric, strictly ordered `seq`. */
export interface SeqPageRequest {
  /** Page size (already validated by the core). */
  readonly first: number;
  /** Exclusive anchor: items strictly after this seq in the list's order; null for the start. */
  readonly afterSeq: number | null;
}

/** A team to insert (ids minted by the core). */
export interface NewTeam {
  readonly id: TeamId;
  readonly owner: OwnerId;
  readonly clientRequestId: string;
  /** Hash of the creation content, compared on an idempotent retry. */
  readonly fingerprint: string;
  readonly name: string;
  readonly goal: string;
  readonly members: readonly { id: MemberId; name: string; agentId: AgentId; conversationId: ConversationId }[];
}

/** A request job to insert, with the record message that announces it. */
export interface NewRequest {
  readonly id: JobId;
  readonly recordId: RecordId;
  readonly memberId: MemberId;
  readonly conversationId: ConversationId;
  readonly requester: Requester;
  readonly parentId: JobId | null;
  /** The new job's own id when it starts a chain. */
  readonly rootId: JobId;
  readonly clientKey: string;
  readonly text: string;
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

/** Filters of `Team.jobs`. */
export interface JobFilter {
  readonly kind?: JobKind | null;
  readonly statuses?: readonly JobStatus[] | null;
  readonly memberId?: MemberId | null;
}

/** Everything needed to freeze one admitted job's input. */
export interface FreezeContext {
  readonly job: Job;
  readonly team: Team;
  readonly members: readonly Member[];
  /** The newest record messages (at most the context count), oldest first. */
  readonly recentRecords: readonly RecordMessage[];
}

/**
 * Filters of the member read tools (`read_team_history`, `search_team_results`) and of
 * `Team.history`/`Team.results`, applied by the store before paging.
 */
export interface TeamReadFilter {
  /** Records: about or sent by this member. Results: executed or asked by this member. */
  readonly memberId: MemberId | null;
  /** Records: about this job. Results: this request, or a request whose parent or root it is. */
  readonly jobId: JobId | null;
  /**
   * Literal substring, already folded with the core's `foldSearchText`; the store compares it
   * with the folded record text (records) or the folded task text and stored answer (results).
   */
  readonly query: string | null;
}

/** A newest-first keyset page request (seq descending). */
export interface NewestFirstPageRequest {
  /** Page size (already validated by the core). */
  readonly limit: number;
  /** Exclusive anchor: items with a lower seq than this; null for the newest. */
  readonly beforeSeq: number | null;
}

/** A newest-first page and whether its anchor is still there. */
export interface NewestFirstPage<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean;
  /**
   * False when `beforeSeq` names no retained item of the team (a record rotated out, a job
   * gone); the items are then empty. True when there was no anchor.
   */
  readonly anchorFound: boolean;
}

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

/** A job one planning pass admitted, with the admitting server's lease. */
export interface AdmittedJob {
  readonly job: Job;
  /** Present when the pass was given a `serverId`. */
  readonly lease?: JobLease;
}

/** An active job with the lease its claiming server now holds on it. */
export interface LeasedJob {
  readonly job: Job;
  readonly lease: JobLease;
}

/** A message of a member's conversation (written by runtimes, read by `Member.conversation`). */
export interface ConversationMessage {
  readonly id: string;
  readonly conversationId: ConversationId;
  readonly seq: number;
  readonly role: 'USER' | 'ASSISTANT' | 'TOOL';
  readonly text: string | null;
  readonly toolName: string | null;
  readonly jobId: JobId | null;
  readonly createdAt: string;
}

/**
 * Port: durable storage of teams, members, jobs, the shared record and the event log.
 *
 * @remarks Every method is atomic (one transaction). Every write that changes something a client
 * can see bumps the team's `revision` and appends entries to the team's event log in the same
 * transaction, and reports them to the {@link import('./event-sink.js').EventSink} after commit.
 * `now` always comes from the caller's clock. Owner-scoped reads answer null/empty for another
 * owner's ids, never an error that reveals existence.
 */
export interface TeamStore {
  // ---- teams -------------------------------------------------------------------------------
  /**
   * Inserts a team (status CREATING) and its members, or returns the existing team for the same
   * (owner, clientRequestId). Throws IDEMPOTENCY_CONFLICT when that key exists with another
   * fingerprint, TEAM_LIMIT when the owner already has `maxTeams` teams.
   */
  createTeam(team: NewTeam, opts: { now: string; maxTeams: number }): Promise<{ team: Team; created: boolean }>;
  /** Sets a team's status (CREATING → READY, READY ↔ DISCONNECTED). */
  setTeamStatus(teamId: TeamId, status: TeamStatus, now: string): Promise<Team>;
  /** The owner's team, or null. */
  findTeam(owner: OwnerId, teamId: TeamId): Promise<Team | null>;
  /** Teams by id, any owner (for batch loading after scoping). Missing ids are skipped. */
  findTeams(teamIds: readonly TeamId[]): Promise<readonly Team[]>;
  /** The owner's teams, newest first. `afterSeq` is the creation seq of the last team seen. */
  listTeams(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Team & { readonly seq: number }>>;
  /** Teams in a given status, any owner (reconciliation at start). */
  listTeamsByStatus(status: TeamStatus): Promise<readonly Team[]>;
  /** Members of the given teams, in roster order per team. */
  listMembers(teamIds: readonly TeamId[]): Promise<readonly Member[]>;
  /** Members by id, any owner (for batch loading). */
  findMembers(memberIds: readonly MemberId[]): Promise<readonly Member[]>;
  /**
   * Deletes a team with its members, jobs, record and events. Throws NOT_FOUND (absent or
   * another owner's) or PENDING_WORK (any job unfinished). Conversations are kept.
   */
  deleteTeam(owner: OwnerId, teamId: TeamId, now: string): Promise<void>;

  // ---- jobs --------------------------------------------------------------------------------
  /**
   * Enqueues requests atomically: loads the {@link EnqueueSnapshot} (team locked), calls
   * `decide`, inserts the decided jobs with their REQUEST record messages and events. Throws
   * NOT_FOUND when the team is absent or another owner's, and whatever `decide` throws.
   * @returns the jobs named by `resultIds`, in that order.
   */
  enqueueRequests(args: {
    owner: OwnerId;
    teamId: TeamId;
    keys: readonly { requesterConversationId: ConversationId | null; clientKey: string; memberId: MemberId }[];
    roots: readonly JobId[];
    now: string;
    decide: (snapshot: EnqueueSnapshot) => EnqueueDecision;
  }): Promise<readonly Job[]>;
  /** The owner's job, or null. */
  findJob(owner: OwnerId, jobId: JobId): Promise<Job | null>;
  /** Jobs by id, any owner (batch loading, scheduler). Missing ids are skipped. */
  findJobs(jobIds: readonly JobId[]): Promise<readonly Job[]>;
  /** Jobs of a team in creation order (oldest first), filtered, with the filtered total. */
  listJobs(
    teamId: TeamId,
    filter: JobFilter,
    page: SeqPageRequest,
  ): Promise<SeqPage<Job> & { readonly totalCount: number }>;
  /**
   * Applies one state-machine step atomically: loads the job (NOT_FOUND when absent or, if
   * `owner` is given, another owner's), calls `decide` (normally the core's `transition`),
   * persists the next job and the persistent effects (APPEND_RECORD, CREATE_RECEIPT), appends
   * events, bumps the revision. A decide that returns the job unchanged writes nothing. With
   * `lease` (the scheduler driving the job), throws STALE_LEASE and writes nothing unless the job is
   * still held by that server with that fence.
   * @returns the next job, and whether anything was written.
   */
  updateJob(
    jobId: JobId,
    decide: (job: Job) => TransitionOutcome,
    opts: { now: string; owner?: OwnerId; lease?: JobLease },
  ): Promise<{ job: Job; changed: boolean }>;
  /**
   * Records a person's answer atomically, idempotent by (job, `clientRequestId`): when that key
   * was already used on the job, returns the job as it is now (`replayed`) if `fingerprint`
   * matches, or throws IDEMPOTENCY_CONFLICT; otherwise loads the job (NOT_FOUND when absent or
   * another owner's), calls `decide`, persists the outcome as {@link TeamStore.updateJob} does
   * and stores the key with its fingerprint. Whatever `decide` throws or refuses stores nothing.
   */
  respondToJob(args: {
    owner: OwnerId;
    jobId: JobId;
    clientRequestId: string;
    fingerprint: string;
    now: string;
    decide: (job: Job) => TransitionOutcome;
  }): Promise<{ job: Job; replayed: boolean }>;
  /** Unfinished jobs that hold or may hold a run (ADMITTING, RUNNING, RESUMING, CANCELLING). */
  listActiveJobs(): Promise<readonly Job[]>;
  /** Numbers of REQUEST and RECEIPT jobs of a team (for `Team.capacity`). */
  countJobs(teamId: TeamId): Promise<{ readonly requests: number; readonly receipts: number }>;
  /**
   * For each conversation: the phase of its head (oldest unfinished) job, or null when idle, and
   * the phase of its most recently finished job, or null. Feeds the derived member status.
   */
  conversationStates(
    conversationIds: readonly ConversationId[],
  ): Promise<ReadonlyMap<ConversationId, { readonly head: JobPhase | null; readonly lastFinished: JobPhase | null }>>;
  /** Jobs waiting for a person, of one owner, oldest first. */
  listWaitingJobs(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Job> & { readonly totalCount: number }>;

  // ---- scheduling --------------------------------------------------------------------------
  /**
   * One planning pass, atomic across every server on the database: reads the
   * {@link AdmissionSnapshot} (active count, the head QUEUED or ANSWERED job of every idle
   * conversation of a READY team, the persisted round state), calls `plan`, persists the new
   * round state, and applies `freeze` to each admitted job (FREEZE for a QUEUED job, RESUME for an
   * ANSWERED one: `freeze` returns the transition outcome).
   * With `serverId`, each admitted job is leased to that server (its fence incremented).
   * @returns the admitted jobs, now ADMITTING or RESUMING, with, given `serverId`, the lease the
   * server now holds on each.
   */
  admit(args: {
    now: string;
    serverId?: string;
    plan: (snapshot: AdmissionSnapshot) => AdmissionPlan;
    freeze: (ctx: FreezeContext) => TransitionOutcome;
  }): Promise<readonly AdmittedJob[]>;

  // ---- leases (many servers on one database) ---------------------------------------------
  /** Registers or renews a server incarnation's lease until `expiresAtMs` (an upsert). */
  renewServerLease(args: { serverId: string; host: string; now: string; expiresAtMs: number }): Promise<void>;
  /**
   * Claims for `serverId` every active job no live server holds (no holder, or a holder whose
   * server lease is missing or expired at `nowMs`; with `takeOver`, every active job whatever its
   * holder: for a server that knows it is alone on the database), incrementing each claimed job's
   * fence. Rows another server is claiming at the same moment are skipped: they are its.
   * @returns every active job `serverId` holds now, with its lease, in creation order.
   */
  claimActiveJobs(args: { serverId: string; nowMs: number; takeOver?: boolean }): Promise<readonly LeasedJob[]>;
  /**
   * Gives up a server's leases at once (graceful shutdown): its active jobs have no holder any more
   * and its server lease is removed, so any other server claims them at its next pass.
   */
  releaseServerLeases(serverId: string): Promise<void>;

  // ---- shared record -----------------------------------------------------------------------
  /** The newest `limit` record messages of a team, oldest first. */
  recentRecords(teamId: TeamId, limit: number): Promise<readonly RecordMessage[]>;
  /** Record messages by id (batch loading). */
  findRecords(recordIds: readonly RecordId[]): Promise<readonly RecordMessage[]>;

  // ---- member read tools -----------------------------------------------------------------
  /** A page of a team's retained record messages, newest first, filtered (see {@link TeamReadFilter}). */
  pageRecords(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<RecordMessage>>;
  /**
   * A page of a team's finished REQUEST jobs (completed, failed, cancelled; receipts never),
   * newest first by creation, filtered (see {@link TeamReadFilter}).
   */
  searchResults(teamId: TeamId, filter: TeamReadFilter, page: NewestFirstPageRequest): Promise<NewestFirstPage<Job>>;

  // ---- event log ---------------------------------------------------------------------------
  /** Retained events of a team with seq > afterSeq, in seq order, at most `limit`. */
  readEvents(teamId: TeamId, afterSeq: number, limit: number): Promise<readonly TeamEvent[]>;

  // ---- usage -------------------------------------------------------------------------------
  /**
   * Records the usage of one model call; idempotent by `entry.id` (a second record of the same
   * id changes nothing). Not a visible team change: no revision, no event.
   */
  recordUsage(entry: UsageEntry, now: string): Promise<void>;
  /**
   * Sums recorded usage per scope (a `chain` scope sums every job whose root is that id). The
   * answer has an entry for every scope asked, keyed by {@link usageScopeKey}, zero when none.
   */
  usageTotals(scopes: readonly UsageScope[]): Promise<ReadonlyMap<string, UsageTotals>>;

  // ---- conversations -----------------------------------------------------------------------
  /** Appends messages to a member conversation (runtimes call this). */
  appendConversation(
    conversationId: ConversationId,
    messages: readonly Omit<ConversationMessage, 'id' | 'seq' | 'conversationId' | 'createdAt'>[],
    now: string,
  ): Promise<void>;
  /** A conversation's messages, oldest first. */
  listConversation(conversationId: ConversationId, page: SeqPageRequest): Promise<SeqPage<ConversationMessage>>;

  /** Releases connections. */
  close(): Promise<void>;
}

/** Re-exported for adapters that build snapshots. */
export type { AdmissionPlan, AdmissionSnapshot, JobCommand, TurnInput };
