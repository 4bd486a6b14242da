import type {
  AdmitArgs,
  AdmittedJob,
  ChangeTaskArgs,
  ClaimArgs,
  ConversationId,
  ConversationMessage,
  ConversationState,
  EnqueueRequestsArgs,
  EventSink,
  IdGenerator,
  Job,
  JobFilter,
  JobId,
  LeasedJob,
  Mailbox,
  Member,
  MemberId,
  NewConversationMessage,
  NewestFirstPage,
  NewestFirstPageRequest,
  NewTeam,
  OwnerId,
  RecordId,
  RecordMessage,
  RenewLeaseArgs,
  ReserveSpendArgs,
  RespondToJobArgs,
  SeqPage,
  SeqPageRequest,
  SpendDecision,
  Task,
  TaskChange,
  TaskFilter,
  TaskId,
  Team,
  TeamBudget,
  TeamBudgetLimits,
  TeamEvent,
  TeamId,
  TeamLifecycle,
  TeamReadFilter,
  TeamStatus,
  TeamStore,
  TransitionOutcome,
  UpdateJobOptions,
  UsageEntry,
  UsageScope,
  UsageTotals,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import * as admission from './admission.js';
import * as budgets from './budgets.js';
import * as changeWaits from './change-waits.js';
import * as conversations from './conversations.js';
import type { Database } from './database-types.js';
import * as jobLeases from './job-leases.js';
import * as jobReads from './job-reads.js';
import * as jobWrites from './job-writes.js';
import * as mailbox from './mailbox.js';
import * as memberToolReads from './member-tool-reads.js';
import { migrateToLatest } from './migrate.js';
import { type DatabaseDialect, type OpenDatabaseOptions, openDatabase } from './open-database.js';
import * as recordReads from './record-reads.js';
import * as taskBoard from './task-board.js';
import * as lifecycle from './team-lifecycle.js';
import * as teamReads from './team-reads.js';
import * as teamWrites from './team-writes.js';
import * as usage from './usage.js';
import { runWrite, type StoreContext } from './write-transaction.js';

/** Options of {@link KyselyTeamStore}. */
export interface KyselyTeamStoreOptions {
  /** Told about committed events (live subscriptions, the scheduler's wake-up). */
  readonly events?: EventSink;
  /**
   * Mints the ids of record messages the store appends for APPEND_RECORD effects; share the
   * core's. Without it the id is derived from the job (`record_<job id>_<kind>`).
   */
  readonly ids?: Pick<IdGenerator, 'recordId'>;
  /**
   * What `close()` releases. By default nothing: whoever opened the database closes it (the
   * composition root shares it with the runtimes). {@link KyselyTeamStore.open} passes the close
   * of the database it opened.
   */
  readonly close?: () => Promise<void>;
}

/**
 * The {@link TeamStore} over Kysely, one implementation for SQLite and PostgreSQL: every role in
 * one object, each method a thin entry into the module of its role (`team-writes.ts`,
 * `job-reads.ts`, `admission.ts`, `job-leases.ts`, ...).
 *
 * @remarks Each method is one transaction (`BEGIN IMMEDIATE` on SQLite; row locks on
 * PostgreSQL, see `write-transaction.ts`).
 */
export class KyselyTeamStore implements TeamStore {
  readonly #ctx: StoreContext;
  readonly #close: () => Promise<void>;

  constructor(db: Kysely<Database>, dialect: DatabaseDialect, opts: KyselyTeamStoreOptions = {}) {
    this.#ctx = { db, dialect, sink: opts.events ?? null, ids: opts.ids ?? null };
    this.#close = opts.close ?? (async () => undefined);
  }

  /** Opens `target` (file, `:memory:` or PostgreSQL URL), migrates it, and wraps it in a store. */
  static async open(target: string, opts: KyselyTeamStoreOptions & OpenDatabaseOptions = {}): Promise<KyselyTeamStore> {
    const database = await openDatabase(target, opts);
    try {
      await migrateToLatest(database.db, database.dialect);
    } catch (error) {
      await database.close();
      throw error;
    }
    return new KyselyTeamStore(database.db, database.dialect, { ...opts, close: database.close });
  }

  /** The Kysely handle, for adapters that own other tables (the runtimes' `runtime_runs`). */
  get db(): Kysely<Database> {
    return this.#ctx.db;
  }

  /** Which engine the store runs on. */
  get dialect(): DatabaseDialect {
    return this.#ctx.dialect;
  }

  // ---- TeamWrites ---------------------------------------------------------------------------

  createTeam(team: NewTeam, opts: { now: string; maxTeams: number }): Promise<{ team: Team; created: boolean }> {
    return runWrite(this.#ctx, opts.now, (scope) => teamWrites.createTeam(scope, team, opts.maxTeams), {
      retryOnUniqueViolation: true,
    });
  }

  setTeamStatus(teamId: TeamId, status: TeamStatus, now: string): Promise<Team> {
    return runWrite(this.#ctx, now, (scope) => teamWrites.setTeamStatus(scope, teamId, status));
  }

  deleteTeam(owner: OwnerId, teamId: TeamId, now: string): Promise<void> {
    return runWrite(this.#ctx, now, (scope) => teamWrites.deleteTeam(scope, owner, teamId));
  }

  // ---- TeamLifecycle (decision 0165): spawn, retire and close, each one transaction ----------

  readonly spawnMember: TeamLifecycle['spawnMember'] = (args) =>
    runWrite(this.#ctx, args.now, (scope) => lifecycle.spawnMember(scope, args), { retryOnUniqueViolation: true });
  readonly retireMember: TeamLifecycle['retireMember'] = (args) =>
    runWrite(this.#ctx, args.now, (scope) => lifecycle.retireMember(scope, args));
  readonly closeTeam: TeamLifecycle['closeTeam'] = (args) =>
    runWrite(this.#ctx, args.now, (scope) => lifecycle.closeTeam(scope, args));

  // ---- TeamReads ----------------------------------------------------------------------------

  findTeam(owner: OwnerId, teamId: TeamId): Promise<Team | null> {
    return teamReads.findTeam(this.#ctx.db, owner, teamId);
  }

  findTeams(teamIds: readonly TeamId[]): Promise<readonly Team[]> {
    return teamReads.findTeams(this.#ctx.db, teamIds);
  }

  listTeams(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Team & { readonly seq: number }>> {
    return teamReads.listTeams(this.#ctx.db, owner, page);
  }

  listTeamsByStatus(status: TeamStatus): Promise<readonly Team[]> {
    return teamReads.listTeamsByStatus(this.#ctx.db, status);
  }

  listMembers(teamIds: readonly TeamId[]): Promise<readonly Member[]> {
    return teamReads.listMembers(this.#ctx.db, teamIds);
  }

  findMembers(memberIds: readonly MemberId[]): Promise<readonly Member[]> {
    return teamReads.findMembers(this.#ctx.db, memberIds);
  }

  // ---- JobWrites ----------------------------------------------------------------------------

  enqueueRequests(args: EnqueueRequestsArgs): Promise<readonly Job[]> {
    // A unique violation on the idempotency index means another server inserted the twin first:
    // the retry's snapshot shows it as `existing`, so `decide` returns it.
    return runWrite(this.#ctx, args.now, (scope) => jobWrites.enqueueRequests(scope, args), {
      retryOnUniqueViolation: true,
    });
  }

  updateJob(
    jobId: JobId,
    decide: (job: Job) => TransitionOutcome,
    opts: UpdateJobOptions,
  ): Promise<{ job: Job; changed: boolean }> {
    return runWrite(this.#ctx, opts.now, (scope) => jobWrites.updateJob(scope, jobId, decide, opts.owner, opts.lease));
  }

  respondToJob(args: RespondToJobArgs): Promise<{ job: Job; replayed: boolean }> {
    return runWrite(this.#ctx, args.now, (scope) => jobWrites.respondToJob(scope, args));
  }

  // ---- JobReads -----------------------------------------------------------------------------

  findJob(owner: OwnerId, jobId: JobId): Promise<Job | null> {
    return jobReads.findJob(this.#ctx.db, owner, jobId);
  }

  findJobs(jobIds: readonly JobId[]): Promise<readonly Job[]> {
    return jobReads.findJobs(this.#ctx.db, jobIds);
  }

  listJobs(teamId: TeamId, filter: JobFilter, page: SeqPageRequest): Promise<SeqPage<Job> & { totalCount: number }> {
    return jobReads.listJobs(this.#ctx.db, teamId, filter, page);
  }

  listActiveJobs(): Promise<readonly Job[]> {
    return jobReads.listActiveJobs(this.#ctx.db);
  }

  countJobs(teamId: TeamId): Promise<{ readonly requests: number; readonly receipts: number }> {
    return jobReads.countJobs(this.#ctx.db, teamId);
  }

  conversationStates(
    conversationIds: readonly ConversationId[],
  ): Promise<ReadonlyMap<ConversationId, ConversationState>> {
    return jobReads.conversationStates(this.#ctx.db, conversationIds);
  }

  listWaitingJobs(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Job> & { totalCount: number }> {
    return jobReads.listWaitingJobs(this.#ctx.db, owner, page);
  }

  // ---- Admission and Leases -----------------------------------------------------------------

  async admit(args: AdmitArgs): Promise<readonly AdmittedJob[]> {
    if (!(await admission.admissionMayChange(this.#ctx.db, args.now))) return [];
    return runWrite(this.#ctx, args.now, (scope) => admission.admit(scope, args), { retryOnUniqueViolation: true });
  }

  nextWaitDeadline(): Promise<string | null> {
    return changeWaits.nextWaitDeadline(this.#ctx.db);
  }

  renewServerLease(args: RenewLeaseArgs): Promise<void> {
    return runWrite(this.#ctx, args.now, (scope) => jobLeases.renewServerLease(scope, args));
  }

  claimActiveJobs(args: ClaimArgs): Promise<readonly LeasedJob[]> {
    // No caller's `now` here: a claim writes no timestamp, only the holder and the fence.
    return runWrite(this.#ctx, new Date(args.nowMs).toISOString(), (scope) => jobLeases.claimActiveJobs(scope, args));
  }

  releaseServerLeases(serverId: string): Promise<void> {
    return runWrite(this.#ctx, new Date(0).toISOString(), (scope) => jobLeases.releaseServerLeases(scope, serverId));
  }

  // ---- RecordReads and EventLog -------------------------------------------------------------

  recentRecords(teamId: TeamId, limit: number): Promise<readonly RecordMessage[]> {
    return recordReads.recentRecords(this.#ctx.db, teamId, limit);
  }

  findRecords(recordIds: readonly RecordId[]): Promise<readonly RecordMessage[]> {
    return recordReads.findRecords(this.#ctx.db, recordIds);
  }

  pageRecords(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<RecordMessage>> {
    return memberToolReads.pageRecords(this.#ctx.db, this.#ctx.dialect, teamId, filter, page);
  }

  searchResults(teamId: TeamId, filter: TeamReadFilter, page: NewestFirstPageRequest): Promise<NewestFirstPage<Job>> {
    return memberToolReads.searchResults(this.#ctx.db, this.#ctx.dialect, teamId, filter, page);
  }

  readEvents(teamId: TeamId, afterSeq: number, limit: number): Promise<readonly TeamEvent[]> {
    return recordReads.readEvents(this.#ctx.db, teamId, afterSeq, limit);
  }

  // ---- UsageLedger and ConversationLog ------------------------------------------------------

  // ---- Budgets ------------------------------------------------------------------------------

  setTeamBudget(owner: OwnerId, teamId: TeamId, limits: TeamBudgetLimits, now: string): Promise<Team> {
    return runWrite(this.#ctx, now, (scope) => budgets.setTeamBudget(scope, owner, teamId, limits));
  }

  teamBudgets(teamIds: readonly TeamId[]): Promise<ReadonlyMap<TeamId, TeamBudget>> {
    return budgets.teamBudgets(this.#ctx.db, teamIds);
  }

  async reserveSpend(args: ReserveSpendArgs): Promise<SpendDecision> {
    if (await budgets.noBudgetApplies(this.#ctx.db, args)) return { ok: true };
    return runWrite(this.#ctx, args.now, (scope) => budgets.reserveSpend(scope, args));
  }

  releaseSpend(reservationId: string): Promise<void> {
    return budgets.releaseSpend(this.#ctx.db, reservationId);
  }

  recordUsage(entry: UsageEntry, now: string): Promise<void> {
    return usage.insertUsage(this.#ctx.db, entry, now);
  }

  usageTotals(scopes: readonly UsageScope[]): Promise<ReadonlyMap<string, UsageTotals>> {
    return usage.usageTotals(this.#ctx.db, scopes);
  }

  appendConversation(
    conversationId: ConversationId,
    messages: readonly NewConversationMessage[],
    now: string,
  ): Promise<void> {
    return conversations.appendConversation(this.#ctx.db, conversationId, messages, now);
  }

  listConversation(conversationId: ConversationId, page: SeqPageRequest): Promise<SeqPage<ConversationMessage>> {
    return conversations.listConversation(this.#ctx.db, conversationId, page);
  }

  // ---- Mailbox (storage/mailbox.ts) --------------------------------------------------------

  readonly sendMessage: Mailbox['sendMessage'] = (args) =>
    runWrite(this.#ctx, args.now, (scope) => mailbox.sendMessage(scope, args), { retryOnUniqueViolation: true });
  readonly pageMessages: Mailbox['pageMessages'] = (teamId, page) => mailbox.pageMessages(this.#ctx.db, teamId, page);
  readonly findMessages: Mailbox['findMessages'] = (ids) => mailbox.findMessages(this.#ctx.db, ids);
  readonly undeliveredMessages: Mailbox['undeliveredMessages'] = (id) => mailbox.undeliveredMessages(this.#ctx.db, id);
  readonly messageDeliveries: Mailbox['messageDeliveries'] = async (ids) =>
    mailbox.messageDeliveries(this.#ctx.db, await mailbox.findMessages(this.#ctx.db, ids));
  // ---- Tasks --------------------------------------------------------------------------------

  changeTask(args: ChangeTaskArgs): Promise<TaskChange> {
    return runWrite(this.#ctx, args.now, (scope) => taskBoard.changeTask(scope, args));
  }

  listTasks(teamId: TeamId, filter: TaskFilter, page: SeqPageRequest): Promise<SeqPage<Task> & { totalCount: number }> {
    return taskBoard.listTasks(this.#ctx.db, teamId, filter, page);
  }

  findTasks(taskIds: readonly TaskId[]): Promise<readonly Task[]> {
    return taskBoard.findTasks(this.#ctx.db, taskIds);
  }

  releaseClaims(teamId: TeamId, memberId: MemberId | null, reason: string, now: string): Promise<readonly Task[]> {
    return runWrite(this.#ctx, now, async (scope) => {
      if ((await scope.lockTeam(teamId)) === undefined) return [];
      return taskBoard.releaseClaimsIn(scope, teamId, memberId, reason);
    });
  }

  close(): Promise<void> {
    return this.#close();
  }
}
