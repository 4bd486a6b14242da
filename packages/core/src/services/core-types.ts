import type { AgentDefinition } from '../model/agent.js';
import type { AgentId, IdGenerator, JobId, MemberId, MessageId, OwnerId, RecordId, TeamId } from '../model/ids.js';
import type { Job, JobKind, JobStatus, JobView } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, MemberStatus, Team } from '../model/team.js';
import type { TeamMessage } from '../model/team-message.js';
import type { UsageScope, UsageTotals } from '../model/usage.js';
import type { AgentCatalog } from '../ports/agent-catalog.js';
import type { AgentRuntime, MemberToolPort } from '../ports/agent-runtime.js';
import type { Clock } from '../ports/clock.js';
import type { TeamEvent } from '../ports/event-sink.js';
import type {
  Budgets,
  ConversationLog,
  ConversationMessage,
  EventLog,
  JobReads,
  JobWrites,
  Mailbox,
  RecordReads,
  Tasks,
  TeamLifecycle,
  TeamReads,
  TeamWrites,
  UsageLedger,
} from '../ports/team-store.js';
import type { TeamBudget, TeamBudgetLimits } from '../spend/spend-types.js';
import type { Task, TaskId } from '../tasks/task.js';
import type { OutsideWait } from '../tools/outside-wait.js';
import type { TeamReadArgs } from '../tools/read-args.js';
import type { HistoryPageView, ResultPageView, ResultRecordView } from '../tools/result-views.js';
import type { TaskUseCases } from './task-service.js';

/** A Relay-style page: items with their opaque cursors. */
export interface Connection<T> {
  readonly edges: readonly { readonly cursor: string; readonly node: T }[];
  readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null };
  readonly totalCount?: number;
}

/** Relay page arguments as clients send them (validated by the core). */
export interface PageArgs {
  readonly first?: number | null;
  readonly after?: string | null;
}

/** Port: where the core reports failures it recovered from (never thrown to callers). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Looks up the runtime that runs an agent. */
export interface RuntimeRegistry {
  /** The runtime named by an agent's `runtime`, or null when none is configured. */
  get(name: string): AgentRuntime | null;
}

/** The store roles the use cases read and write (admission and leases belong to the scheduler). */
export type CoreStore = TeamWrites &
  TeamReads &
  JobWrites &
  JobReads &
  RecordReads &
  EventLog &
  UsageLedger &
  ConversationLog &
  Mailbox &
  Tasks &
  TeamLifecycle &
  Budgets;

/** {@link CoreDeps} with a store of only the roles `R`: what one use case depends on. */
export type UsesStore<R> = Omit<CoreDeps, 'store'> & { readonly store: R };

/** What {@link createCore} is built from. */
export interface CoreDeps {
  readonly store: CoreStore;
  readonly catalog: AgentCatalog;
  readonly runtimes: RuntimeRegistry;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
}

/** Input of `createTeam`. */
export interface CreateTeamInput {
  readonly clientRequestId: string;
  readonly name: string;
  readonly goal: string;
  readonly members: readonly MemberInput[];
}

/** One member of {@link CreateTeamInput}. */
export interface MemberInput {
  readonly name: string;
  readonly agentId: string;
  /** Free text shown in the roster, the team context and the member's instructions; null or absent for none. */
  readonly role?: string | null;
  /** True for the team's one lead; null or absent means false. */
  readonly lead?: boolean | null;
}

/** Input of `sendRequest`. */
export interface SendRequestInput {
  readonly teamId: string;
  readonly memberIds: readonly string[];
  readonly text: string;
  readonly clientRequestId: string;
}

/** Input of `sendMessage` (a person messages members of their team). */
export interface SendMessageInput {
  readonly teamId: string;
  readonly memberIds: readonly string[];
  readonly text: string;
  /** `QUIET` or `FOLLOW_UP`. */
  readonly delivery: string;
  readonly clientRequestId: string;
}

/** Input of `respond`. */
export interface RespondInput {
  readonly jobId: string;
  /** A string for a clarification; any JSON value for an interrupt. */
  readonly response: unknown;
  readonly clientRequestId: string;
  /** The `InputRequest.requestId` the client saw; when given and stale → INPUT_CHANGED. */
  readonly inputRequestId?: string | null;
}

/** `Team.capacity`. */
export interface TeamCapacity {
  readonly requests: number;
  readonly requestLimit: number;
  readonly receipts: number;
  readonly receiptLimit: number;
  readonly chainLimit: number;
}

/** A page of jobs without their frozen inputs (decision 0246), with the filtered total. */
export type JobPage = Connection<JobView> & { totalCount: number };

/** `Team.activity`: unchanged, or a page of request jobs. */
export type ActivityResult =
  | { readonly unchanged: true; readonly revision: string }
  | { readonly unchanged: false; readonly revision: string; readonly jobs: JobPage };

/** `Team.context`: what every member sees. */
export interface TeamContextView {
  readonly goal: string;
  readonly members: readonly Member[];
  /** Last 8 record messages within 24,000 bytes of JSON, oldest first. */
  readonly messages: readonly RecordMessage[];
}

/** A mention target across the viewer's ready teams. */
export interface MentionTargetView {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly team: Team;
  readonly member: Member;
}

/** Input of `spawnMember` (the owner acting as the lead). */
export interface SpawnMemberInput {
  readonly teamId: string;
  readonly name: string;
  readonly agentId: string;
  readonly role?: string | null;
  /** `fresh` (default) or `fork`. */
  readonly context?: string | null;
  readonly clientRequestId: string;
}

/** The outcome of `cancelJob`. */
export interface CancelOutcome {
  readonly job: Job;
  /** True when the job had already finished: nothing changed. */
  readonly alreadyFinished: boolean;
}

/**
 * The application's use cases. Resolvers and the CLI call only these; every method scopes by
 * owner and throws {@link import('../errors/domain-error.js').DomainError} on expected failures.
 */
export interface Core {
  readonly teams: {
    create(owner: OwnerId, input: CreateTeamInput): Promise<Team>;
    get(owner: OwnerId, teamId: string): Promise<Team | null>;
    list(owner: OwnerId, page: PageArgs): Promise<Connection<Team>>;
    delete(owner: OwnerId, teamId: string): Promise<TeamId>;
    /** Ensures every member conversation again and sets the team READY. */
    reconnect(owner: OwnerId, teamId: string): Promise<Team>;
    capacity(team: Team): Promise<TeamCapacity>;
    context(team: Team): Promise<TeamContextView>;
    activity(team: Team, args: { revision?: string | null } & PageArgs): Promise<ActivityResult>;
    /** Members of teams the caller already holds (batch). */
    members(teamIds: readonly TeamId[]): Promise<readonly Member[]>;
    memberStatuses(members: readonly Member[], teams: readonly Team[]): Promise<ReadonlyMap<MemberId, MemberStatus>>;
  };
  readonly requests: {
    send(owner: OwnerId, input: SendRequestInput): Promise<readonly Job[]>;
  };
  /** The team mailbox (see `message-service.ts`). */
  readonly messages: {
    /** `sendMessage`: idempotent by (team, person, clientRequestId). */
    send(owner: OwnerId, input: SendMessageInput): Promise<TeamMessage>;
    /** `Team.messages`: oldest first. */
    list(team: Team, args: PageArgs): Promise<Connection<TeamMessage>>;
    /** `Member.mailbox`: undelivered messages, oldest first. */
    mailbox(memberId: MemberId): Promise<readonly TeamMessage[]>;
  };
  /** The team lifecycle as the owner (who may always act as the lead); decision 0165. */
  readonly lifecycle: {
    spawn(owner: OwnerId, input: SpawnMemberInput): Promise<Member>;
    retire(owner: OwnerId, memberId: string): Promise<Member>;
    close(owner: OwnerId, teamId: string): Promise<Team>;
    /** The cancelled job, or null when the member had no turn begun. */
    interrupt(owner: OwnerId, memberId: string, reason: string): Promise<Job | null>;
  };
  readonly jobs: {
    get(owner: OwnerId, jobId: string): Promise<JobView | null>;
    list(
      team: Team,
      args: { kind?: JobKind | null; statuses?: readonly JobStatus[] | null; memberId?: string | null } & PageArgs,
    ): Promise<JobPage>;
    cancel(owner: OwnerId, jobId: string): Promise<CancelOutcome>;
    /** Answers a job waiting for input (see `respond-service.ts`). */
    respond(owner: OwnerId, input: RespondInput): Promise<Job>;
    inbox(owner: OwnerId, page: PageArgs): Promise<JobPage>;
  };
  readonly agents: {
    search(args: { query?: string | null } & PageArgs): Promise<Connection<AgentDefinition>>;
    get(id: AgentId): Promise<AgentDefinition | null>;
  };
  readonly mentions: {
    search(owner: OwnerId, query: string): Promise<readonly MentionTargetView[]>;
  };
  readonly conversations: {
    list(member: Member, page: PageArgs): Promise<Connection<ConversationMessage>>;
  };
  /** Spending limits of teams (`setTeamBudget`, `Team.budget`). */
  readonly budgets: {
    /** Sets or (both null) removes the limits; NOT_FOUND for another owner's team, INVALID_INPUT out of range. */
    setTeamBudget(owner: OwnerId, teamId: string, limits: TeamBudgetLimits): Promise<Team>;
    /** Limits and usage of teams reached through an owner-scoped read, in the order asked. */
    teamBudgets(teamIds: readonly TeamId[]): Promise<readonly TeamBudget[]>;
  };
  /** Token usage and cost of model calls, summed per scope (answers in the order asked). */
  readonly usage: {
    totals(scopes: readonly UsageScope[]): Promise<readonly UsageTotals[]>;
  };
  /** A team's event log, for `teamEvents` replay and live follow-up. */
  readonly events: {
    /**
     * Retained events of the owner's team with seq > afterSeq, in seq order, at most `limit`.
     * Throws NOT_FOUND for an absent or another owner's team.
     */
    read(owner: OwnerId, teamId: string, afterSeq: number, limit: number): Promise<readonly TeamEvent[]>;
  };
  /**
   * The member tools (handoffs and the team reads), for runtimes and `invokeTeamTool`: every call
   * is bound to one unfinished job, whose conversation is the caller (FORBIDDEN otherwise).
   */
  readonly tools: {
    /** Calls a tool by name with JSON arguments; answers snake_case JSON. */
    invoke(jobId: JobId, name: string, args: unknown): Promise<unknown>;
    /** The tools bound to one job, as a runtime receives them. */
    forJob(jobId: JobId): MemberToolPort;
    /** Checks a `wait_for_change` from outside the server and answers what it waits on. */
    planOutsideWait(jobId: JobId, args: unknown): Promise<OutsideWait>;
  };
  /** Owner-scoped reads of a team's record and results (`Team.history`, `Team.results`, `Team.result`). */
  readonly history: {
    /** The retained record, newest first, filtered, byte-budgeted like `read_team_history`. */
    page(team: Team, args: TeamReadArgs): Promise<HistoryPageView>;
    /** Finished requests, newest first, filtered, like `search_team_results`. */
    results(team: Team, args: TeamReadArgs): Promise<ResultPageView>;
    /** One request or receipt of the team with its retained answer; null when not the team's. */
    result(team: Team, jobId: string): Promise<ResultRecordView | null>;
  };
  /** The team's task board as its owner sees it (the owner may do whatever the lead may). */
  readonly tasks: TaskUseCases;
  /** Loaders for resolvers (batch, unscoped: only call with ids reached through scoped reads). */
  readonly load: {
    /** Without their frozen inputs (no field shows them). */
    jobs(ids: readonly JobId[]): Promise<readonly JobView[]>;
    members(ids: readonly MemberId[]): Promise<readonly Member[]>;
    teams(ids: readonly TeamId[]): Promise<readonly Team[]>;
    /** Shared-record messages by id (what a RECORD_APPENDED event names). */
    records(ids: readonly RecordId[]): Promise<readonly RecordMessage[]>;
    /** Team messages by id (what a message event names). */
    messages(ids: readonly MessageId[]): Promise<readonly TeamMessage[]>;
    /** Tasks by id (what a TASK_CHANGED event or a dependency names). */
    tasks(ids: readonly TaskId[]): Promise<readonly Task[]>;
  };
}
