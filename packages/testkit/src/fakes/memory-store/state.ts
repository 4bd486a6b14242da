import {
  type ConversationId,
  type ConversationMessage,
  EMPTY_ROUND,
  type EventSink,
  type IdGenerator,
  type Job,
  type JobId,
  Limits,
  type Member,
  type MemberId,
  type MessageId,
  type PublishWindow,
  type RecordedToolRequest,
  type RecordKind,
  type RecordMessage,
  type RoundState,
  type SeqPage,
  type Task,
  type TaskId,
  type Team,
  type TeamBudgetLimits,
  type TeamEvent,
  type TeamEventKind,
  type TeamId,
  type TeamMessage,
  type UsageEntry,
} from '@agent-teams/core';

/** A team as the memory store keeps it: the public row plus what only the store needs. */
export interface StoredTeam {
  readonly team: Team;
  /** Global creation order, for `listTeams` (newest first). */
  readonly seq: number;
  /** Hash of the creation content, compared on an idempotent retry. */
  readonly fingerprint: string;
}

/**
 * Every table of the in-memory store.
 *
 * @remarks Plain maps and arrays; each store method reads and writes them synchronously between
 * two awaits, which is what makes each method atomic in a single-threaded runtime.
 */
export class MemoryStoreState {
  readonly teams = new Map<TeamId, StoredTeam>();
  /** Roster order per team. */
  readonly rosters = new Map<TeamId, Member[]>();
  readonly members = new Map<MemberId, Member>();
  /** Jobs in insertion order, which is also `seq` order. */
  readonly jobs = new Map<JobId, Job>();
  /** Retained record messages per team, oldest first. */
  readonly records = new Map<TeamId, RecordMessage[]>();
  readonly recordSeqs = new Map<TeamId, number>();
  readonly events = new Map<TeamId, TeamEvent[]>();
  readonly conversations = new Map<ConversationId, ConversationMessage[]>();
  /** Used answer keys: `jobId` NUL `clientRequestId` → fingerprint (see `respondToJob`). */
  readonly responses = new Map<string, { readonly teamId: TeamId; readonly fingerprint: string }>();
  /** Server incarnations' leases: server id → host and expiry (ms since the epoch). */
  readonly serverLeases = new Map<string, { readonly host: string; readonly expiresAtMs: number }>();
  /** Who drives each job that was ever claimed or admitted with a server id, and its fence. */
  readonly jobLeases = new Map<JobId, { readonly serverId: string | null; readonly fence: number }>();
  /** Each team's budget limits (`setTeamBudget`); absent: no limit. */
  readonly teamBudgets = new Map<TeamId, TeamBudgetLimits>();
  /** Task boards per team, in board order (see `tasks.ts`). */
  readonly tasks = new Map<TeamId, Task[]>();
  /** Recorded member tool calls per team: key → fingerprint and answer (`ToolRequest`). */
  readonly toolRequests = new Map<TeamId, Map<string, RecordedToolRequest>>();
  /** Recorded model usage by entry id. */
  readonly usage = new Map<string, UsageEntry>();
  /** Team messages in creation (`seq`) order. */
  readonly teamMessages = new Map<MessageId, TeamMessage>();
  /** Each recipient's copy: `messageId` NUL `memberId` → the job it was delivered into, or null. */
  readonly deliveries = new Map<string, JobId | null>();
  teamMessageSeq = 0;
  /** When each usage entry was recorded (the owner's daily budget counts by UTC day). */
  readonly usageAt = new Map<string, string>();
  round: RoundState = EMPTY_ROUND;
  teamSeq = 0;
  jobSeq = 0;
  messageSeq = 0;

  constructor(
    readonly ids: IdGenerator,
    readonly sink: EventSink | undefined,
  ) {}

  /** Starts a write to one team; nothing is visible until {@link MemoryStoreState.commit}. */
  write(teamId: TeamId, now: string): TeamWrite {
    return new TeamWrite(this, teamId, now);
  }

  /** What `key` recorded in the team, or null (see `ToolRequest`). */
  recordedToolRequest(teamId: TeamId, key: string): RecordedToolRequest | null {
    return this.toolRequests.get(teamId)?.get(key) ?? null;
  }

  /** Records a member tool call that succeeded, with the id it answered. */
  recordToolRequest(teamId: TeamId, key: string, recorded: RecordedToolRequest): void {
    const keys = this.toolRequests.get(teamId) ?? new Map<string, RecordedToolRequest>();
    keys.set(key, recorded);
    this.toolRequests.set(teamId, keys);
  }

  /** Commits a write and only then tells the sink about its events (never before commit). */
  commit(write: TeamWrite): void {
    const events = write.commit();
    if (events.length > 0) this.sink?.published(events);
  }
}

/**
 * Collects what one transaction does to a team, then bumps its revision once and appends its
 * events, so every visible change costs exactly one revision and one event per changed entity.
 */
export class TeamWrite {
  readonly #pending: Omit<TeamEvent, 'seq' | 'teamId' | 'owner' | 'createdAt'>[] = [];

  constructor(
    readonly state: MemoryStoreState,
    readonly teamId: TeamId,
    readonly now: string,
  ) {}

  /** Queues one event; a duplicate (same kind and subject) in one write is kept once. */
  event(
    kind: TeamEventKind,
    subject: {
      jobId?: JobId;
      recordId?: RecordMessage['id'];
      memberId?: MemberId;
      messageId?: MessageId;
      taskId?: TaskId;
      reason?: string;
    },
  ): void {
    const entry = {
      kind,
      jobId: subject.jobId ?? null,
      recordId: subject.recordId ?? null,
      memberId: subject.memberId ?? null,
      // Only message events name a message, so every other event keeps its old shape.
      ...(subject.messageId === undefined ? {} : { messageId: subject.messageId }),
      // Only task events carry these, as in the SQL store.
      ...(subject.taskId === undefined ? {} : { taskId: subject.taskId }),
      ...(subject.reason === undefined ? {} : { reason: subject.reason }),
    };
    const seen = this.#pending.some(
      (e) =>
        e.kind === entry.kind &&
        e.jobId === entry.jobId &&
        e.recordId === entry.recordId &&
        e.memberId === entry.memberId &&
        e.messageId === entry.messageId &&
        e.taskId === entry.taskId,
    );
    if (!seen) this.#pending.push(entry);
  }

  /** Appends a record message and trims the team's record to the newest {@link Limits.recordRetained}. */
  appendRecord(message: Omit<RecordMessage, 'teamId' | 'seq' | 'createdAt' | 'kind'>, kind: RecordKind): RecordMessage {
    const seq = (this.state.recordSeqs.get(this.teamId) ?? 0) + 1;
    this.state.recordSeqs.set(this.teamId, seq);
    const record: RecordMessage = { ...message, kind, teamId: this.teamId, seq, createdAt: this.now };
    const list = this.state.records.get(this.teamId) ?? [];
    list.push(record);
    if (list.length > Limits.recordRetained) list.splice(0, list.length - Limits.recordRetained);
    this.state.records.set(this.teamId, list);
    this.event('RECORD_APPENDED', { recordId: record.id });
    return record;
  }

  /** True when something visible was queued. */
  get changed(): boolean {
    return this.#pending.length > 0;
  }

  /**
   * Bumps the team's revision once and appends the queued events.
   * @returns the committed events, to publish after commit (none when nothing changed).
   */
  commit(): readonly TeamEvent[] {
    const stored = this.state.teams.get(this.teamId);
    if (stored === undefined || this.#pending.length === 0) return [];
    let seq = stored.team.lastEventSeq;
    const log = this.state.events.get(this.teamId) ?? [];
    const committed = this.#pending.map((entry) => {
      seq += 1;
      const event: TeamEvent = { ...entry, seq, teamId: this.teamId, owner: stored.team.owner, createdAt: this.now };
      log.push(event);
      return event;
    });
    this.state.events.set(this.teamId, log);
    const team: Team = { ...stored.team, revision: stored.team.revision + 1, lastEventSeq: seq, updatedAt: this.now };
    this.state.teams.set(this.teamId, { ...stored, team });
    return committed;
  }
}

/** A page of the first `first` items of `items` (already in list order and after the anchor). */
export function pageOf<T>(items: readonly T[], first: number): SeqPage<T> {
  return { items: items.slice(0, first), hasNextPage: items.length > first };
}

/**
 * Runs one synchronous write inside its caller's publish window: everything it publishes is
 * published while `work` runs (every memory write is synchronous, so nothing else runs meanwhile).
 */
export function withinWindow<T>(window: PublishWindow | undefined, work: () => T): T {
  window?.opened();
  try {
    return work();
  } finally {
    window?.closed();
  }
}
