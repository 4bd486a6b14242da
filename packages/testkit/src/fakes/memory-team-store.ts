import {
  ACTIVE_PHASES,
  type AdmittedJob,
  type ConversationId,
  type ConversationMessage,
  DomainError,
  ErrorCode,
  type EventSink,
  type IdGenerator,
  isTerminal,
  type Job,
  type JobFilter,
  type JobId,
  JobKind,
  type JobLease,
  JobPhase,
  type LeasedJob,
  type Member,
  type MemberId,
  type NewestFirstPage,
  type NewestFirstPageRequest,
  type NewTeam,
  type OwnerId,
  type RecordId,
  type RecordMessage,
  type SeqPage,
  type SeqPageRequest,
  type Team,
  type TeamEvent,
  type TeamId,
  type TeamReadFilter,
  type TeamStatus,
  type TeamStore,
  type TransitionOutcome,
  type UsageEntry,
  type UsageScope,
  type UsageTotals,
} from '@agent-teams/core';
import { type AdmitArgs, admitIn, applyIn, type EnqueueArgs, enqueueIn } from './memory-store-job-writes.js';
import { conversationHeads, matchesFilter } from './memory-store-jobs.js';
import { checkLeaseIn, claimIn, releaseIn } from './memory-store-leases.js';
import { pageRecordsIn, searchResultsIn } from './memory-store-reads.js';
import { MemoryStoreState } from './memory-store-state.js';
import { createTeamIn, deleteTeamIn, setTeamStatusIn, teamNotFound } from './memory-store-team-writes.js';
import { usageTotalsIn } from './memory-store-usage.js';
import { SequentialIds } from './sequential-ids.js';

/** Options of {@link MemoryTeamStore}. */
export interface MemoryTeamStoreOptions {
  /** Mints the ids of record messages the store appends; share the core's so ids never collide. */
  readonly ids?: IdGenerator;
  /** Told about committed events. */
  readonly events?: EventSink;
}

/** A page of the first `first` items of `items` (already in list order and after the anchor). */
function page<T>(items: readonly T[], first: number): SeqPage<T> {
  return { items: items.slice(0, first), hasNextPage: items.length > first };
}

/**
 * The in-memory reference implementation of {@link TeamStore}: faithful to the port's TSDoc, so
 * the store contract suite can run against it and core tests need no database.
 *
 * @remarks Every method does all its reads and writes synchronously, so each is atomic. Events are
 * reported to the sink only after the whole write is applied ("after commit").
 */
export class MemoryTeamStore implements TeamStore {
  readonly #state: MemoryStoreState;
  readonly #usage = new Map<string, UsageEntry>();
  #closed = false;

  constructor(options: MemoryTeamStoreOptions = {}) {
    this.#state = new MemoryStoreState(options.ids ?? new SequentialIds(), options.events);
  }

  // ---- teams -------------------------------------------------------------------------------

  async createTeam(input: NewTeam, opts: { now: string; maxTeams: number }): Promise<{ team: Team; created: boolean }> {
    return createTeamIn(this.#state, input, opts);
  }

  async setTeamStatus(teamId: TeamId, status: TeamStatus, now: string): Promise<Team> {
    return setTeamStatusIn(this.#state, teamId, status, now);
  }

  async findTeam(owner: OwnerId, teamId: TeamId): Promise<Team | null> {
    const team = this.#state.teams.get(teamId)?.team;
    return team !== undefined && team.owner === owner ? team : null;
  }

  async findTeams(teamIds: readonly TeamId[]): Promise<readonly Team[]> {
    return teamIds.flatMap((id) => this.#state.teams.get(id)?.team ?? []);
  }

  async listTeams(owner: OwnerId, req: SeqPageRequest): Promise<SeqPage<Team & { readonly seq: number }>> {
    const { afterSeq } = req;
    const items = [...this.#state.teams.values()]
      .filter((t) => t.team.owner === owner && (afterSeq === null || t.seq < afterSeq))
      .sort((a, b) => b.seq - a.seq)
      .map((t) => ({ ...t.team, seq: t.seq }));
    return page(items, req.first);
  }

  async listTeamsByStatus(status: TeamStatus): Promise<readonly Team[]> {
    return [...this.#state.teams.values()].filter((t) => t.team.status === status).map((t) => t.team);
  }

  async listMembers(teamIds: readonly TeamId[]): Promise<readonly Member[]> {
    return [...new Set(teamIds)].flatMap((id) => this.#state.rosters.get(id) ?? []);
  }

  async findMembers(memberIds: readonly MemberId[]): Promise<readonly Member[]> {
    return memberIds.flatMap((id) => this.#state.members.get(id) ?? []);
  }

  async deleteTeam(owner: OwnerId, teamId: TeamId, now: string): Promise<void> {
    deleteTeamIn(this.#state, owner, teamId, now);
  }

  // ---- jobs --------------------------------------------------------------------------------

  async enqueueRequests(args: { owner: OwnerId; teamId: TeamId } & EnqueueArgs): Promise<readonly Job[]> {
    // Read synchronously: an await here would let another call interleave inside the "transaction".
    const team = this.#state.teams.get(args.teamId)?.team;
    if (team === undefined || team.owner !== args.owner) throw teamNotFound();
    return enqueueIn(this.#state, team, args);
  }

  async findJob(owner: OwnerId, jobId: JobId): Promise<Job | null> {
    const job = this.#state.jobs.get(jobId);
    return job !== undefined && job.owner === owner ? job : null;
  }

  async findJobs(jobIds: readonly JobId[]): Promise<readonly Job[]> {
    return jobIds.flatMap((id) => this.#state.jobs.get(id) ?? []);
  }

  async listJobs(
    teamId: TeamId,
    filter: JobFilter,
    req: SeqPageRequest,
  ): Promise<SeqPage<Job> & { readonly totalCount: number }> {
    const all = [...this.#state.jobs.values()].filter((j) => j.teamId === teamId && matchesFilter(j, filter));
    const after = all.filter((j) => req.afterSeq === null || j.seq > req.afterSeq);
    return { ...page(after, req.first), totalCount: all.length };
  }

  async updateJob(
    jobId: JobId,
    decide: (job: Job) => TransitionOutcome,
    opts: { now: string; owner?: OwnerId; lease?: JobLease },
  ): Promise<{ job: Job; changed: boolean }> {
    const job = this.#state.jobs.get(jobId);
    if (job === undefined || (opts.owner !== undefined && job.owner !== opts.owner)) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', { field: 'jobId' });
    }
    if (opts.lease !== undefined) checkLeaseIn(this.#state, jobId, opts.lease);
    const outcome = decide(job);
    if (!outcome.ok) throw outcome.error;
    return applyIn(this.#state, job, outcome, opts.now);
  }

  async respondToJob(args: {
    owner: OwnerId;
    jobId: JobId;
    clientRequestId: string;
    fingerprint: string;
    now: string;
    decide: (job: Job) => TransitionOutcome;
  }): Promise<{ job: Job; replayed: boolean }> {
    const job = this.#state.jobs.get(args.jobId);
    if (job === undefined || job.owner !== args.owner) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'Job not found.', { field: 'jobId' });
    }
    const key = `${args.jobId}\u0000${args.clientRequestId}`;
    const used = this.#state.responses.get(key);
    if (used !== undefined) {
      if (used.fingerprint !== args.fingerprint) {
        throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This clientRequestId was used with another answer.', {
          field: 'clientRequestId',
        });
      }
      return { job, replayed: true };
    }
    const outcome = args.decide(job);
    if (!outcome.ok) throw outcome.error;
    const applied = applyIn(this.#state, job, outcome, args.now);
    this.#state.responses.set(key, { teamId: job.teamId, fingerprint: args.fingerprint });
    return { job: applied.job, replayed: false };
  }

  async listActiveJobs(): Promise<readonly Job[]> {
    return [...this.#state.jobs.values()].filter((j) => ACTIVE_PHASES.includes(j.phase));
  }

  async countJobs(teamId: TeamId): Promise<{ readonly requests: number; readonly receipts: number }> {
    const jobs = [...this.#state.jobs.values()].filter((j) => j.teamId === teamId);
    const requests = jobs.filter((j) => j.kind === JobKind.REQUEST).length;
    return { requests, receipts: jobs.length - requests };
  }

  async conversationStates(
    conversationIds: readonly ConversationId[],
  ): Promise<ReadonlyMap<ConversationId, { readonly head: JobPhase | null; readonly lastFinished: JobPhase | null }>> {
    const wanted = new Set(conversationIds);
    const jobs = [...this.#state.jobs.values()].filter((j) => wanted.has(j.conversationId));
    const heads = conversationHeads(jobs);
    const states = new Map<ConversationId, { head: JobPhase | null; lastFinished: JobPhase | null }>();
    for (const id of wanted) {
      const finished = jobs
        .filter((j) => j.conversationId === id && isTerminal(j.phase))
        .sort((a, b) => (a.finishedAt ?? '').localeCompare(b.finishedAt ?? '') || a.seq - b.seq)
        .at(-1);
      states.set(id, { head: heads.get(id)?.phase ?? null, lastFinished: finished?.phase ?? null });
    }
    return states;
  }

  async listWaitingJobs(owner: OwnerId, req: SeqPageRequest): Promise<SeqPage<Job> & { readonly totalCount: number }> {
    const all = [...this.#state.jobs.values()].filter((j) => j.owner === owner && j.phase === JobPhase.WAITING_INPUT);
    const after = all.filter((j) => req.afterSeq === null || j.seq > req.afterSeq);
    return { ...page(after, req.first), totalCount: all.length };
  }

  // ---- scheduling --------------------------------------------------------------------------

  async admit(args: AdmitArgs): Promise<readonly AdmittedJob[]> {
    return admitIn(this.#state, args);
  }

  // ---- leases ------------------------------------------------------------------------------

  async renewServerLease(args: { serverId: string; host: string; now: string; expiresAtMs: number }): Promise<void> {
    this.#state.serverLeases.set(args.serverId, { host: args.host, expiresAtMs: args.expiresAtMs });
  }

  async claimActiveJobs(args: { serverId: string; nowMs: number; takeOver?: boolean }): Promise<readonly LeasedJob[]> {
    return claimIn(this.#state, args);
  }

  async releaseServerLeases(serverId: string): Promise<void> {
    releaseIn(this.#state, serverId);
  }

  // ---- shared record -----------------------------------------------------------------------

  async recentRecords(teamId: TeamId, limit: number): Promise<readonly RecordMessage[]> {
    return limit <= 0 ? [] : (this.#state.records.get(teamId) ?? []).slice(-limit);
  }

  async findRecords(recordIds: readonly RecordId[]): Promise<readonly RecordMessage[]> {
    const all = [...this.#state.records.values()].flat();
    return recordIds.flatMap((id) => all.find((r) => r.id === id) ?? []);
  }

  // ---- member read tools -----------------------------------------------------------------

  async pageRecords(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<RecordMessage>> {
    return pageRecordsIn(this.#state.records.get(teamId) ?? [], filter, page);
  }

  async searchResults(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<Job>> {
    return searchResultsIn(
      [...this.#state.jobs.values()].filter((j) => j.teamId === teamId),
      filter,
      page,
    );
  }

  // ---- event log ---------------------------------------------------------------------------

  async readEvents(teamId: TeamId, afterSeq: number, limit: number): Promise<readonly TeamEvent[]> {
    return (this.#state.events.get(teamId) ?? []).filter((e) => e.seq > afterSeq).slice(0, Math.max(0, limit));
  }

  // ---- usage -------------------------------------------------------------------------------

  async recordUsage(entry: UsageEntry, _now: string): Promise<void> {
    if (!this.#usage.has(entry.id)) this.#usage.set(entry.id, entry);
  }

  async usageTotals(scopes: readonly UsageScope[]): Promise<ReadonlyMap<string, UsageTotals>> {
    return usageTotalsIn(this.#usage.values(), this.#state.jobs, scopes);
  }

  // ---- conversations -----------------------------------------------------------------------

  async appendConversation(
    conversationId: ConversationId,
    messages: readonly Omit<ConversationMessage, 'id' | 'seq' | 'conversationId' | 'createdAt'>[],
    now: string,
  ): Promise<void> {
    const s = this.#state;
    const list = s.conversations.get(conversationId) ?? [];
    for (const message of messages) {
      s.messageSeq += 1;
      list.push({ ...message, id: `message_${s.messageSeq}`, seq: s.messageSeq, conversationId, createdAt: now });
    }
    s.conversations.set(conversationId, list);
  }

  async listConversation(conversationId: ConversationId, req: SeqPageRequest): Promise<SeqPage<ConversationMessage>> {
    const list = this.#state.conversations.get(conversationId) ?? [];
    return page(
      list.filter((m) => req.afterSeq === null || m.seq > req.afterSeq),
      req.first,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /** True once {@link close} was called (a test can check the composition root released it). */
  get closed(): boolean {
    return this.#closed;
  }
}
