import type { Admission } from './store/admission.js';
import type { Budgets } from './store/budgets.js';
import type { JobReads } from './store/job-reads.js';
import type { JobWrites } from './store/job-writes.js';
import type { Leases } from './store/leases.js';
import type { Mailbox } from './store/mailbox.js';
import type { ConversationLog, EventLog, RecordReads, UsageLedger } from './store/record-roles.js';
import type { Tasks } from './store/tasks.js';
import type { TeamLifecycle } from './store/team-lifecycle.js';
import type { TeamReads, TeamWrites } from './store/team-roles.js';

export type { Admission, AdmitArgs, AdmittedJob, FreezeContext } from './store/admission.js';
export type { Budgets, ReserveSpendArgs } from './store/budgets.js';
export type { JobFilter, JobReads } from './store/job-reads.js';
export type {
  EnqueueDecision,
  EnqueueRequestsArgs,
  EnqueueSnapshot,
  JobWrites,
  NewRequest,
  RespondToJobArgs,
  UpdateJobOptions,
} from './store/job-writes.js';
export type {
  ClaimArgs,
  ClaimedJobs,
  JobLease,
  LeasedJob,
  Leases,
  RenewLeaseArgs,
  TakenOverJob,
} from './store/leases.js';
export type {
  Mailbox,
  MailboxDecision,
  MailboxSnapshot,
  NewMessageJob,
  NewTeamMessage,
  SendMessageArgs,
  SentMessage,
} from './store/mailbox.js';
export type { NewestFirstPage, NewestFirstPageRequest, SeqPage, SeqPageRequest } from './store/pages.js';
export type {
  ConversationLog,
  ConversationMessage,
  EventLog,
  NewConversationMessage,
  RecordReads,
  TeamReadFilter,
  UsageLedger,
} from './store/record-roles.js';
export type { ChangeTaskArgs, TaskFilter, Tasks } from './store/tasks.js';
export type {
  CloseTeamArgs,
  InterruptTurnArgs,
  RetireMemberArgs,
  SpawnMemberArgs,
  TeamLifecycle,
} from './store/team-lifecycle.js';
export type { NewMember, NewTeam, TeamReads, TeamWrites } from './store/team-roles.js';
export type { RecordedToolRequest, ToolRequest } from './store/tool-requests.js';

/**
 * Port: durable storage of teams, members, jobs, the shared record and the event log, as the
 * roles its callers use. Callers depend on the roles they need (the scheduler on admission,
 * leases and job writes; a runtime on the conversation log; resolvers never see the store); an
 * adapter may implement all of them in one object, as both the SQL store and the in-memory fake do.
 *
 * @remarks Every method is atomic (one transaction). Every write that changes something a client
 * can see bumps the team's `revision` and appends entries to the team's event log in the same
 * transaction, and reports them to the {@link import('./event-sink.js').EventSink} after commit.
 * `now` always comes from the caller's clock. Owner-scoped reads answer null/empty for another
 * owner's ids, never an error that reveals existence.
 */
export interface TeamStore
  extends TeamWrites,
    TeamReads,
    JobWrites,
    JobReads,
    Admission,
    Leases,
    RecordReads,
    EventLog,
    UsageLedger,
    ConversationLog,
    Mailbox,
    Tasks,
    TeamLifecycle,
    Budgets {
  /** Releases connections. */
  close(): Promise<void>;
}

/** The roles of {@link TeamStore} by name, each with its contract suite in `@agent-teams/testkit`. */
export type StoreRole =
  | 'teamWrites'
  | 'teamReads'
  | 'jobWrites'
  | 'jobReads'
  | 'admission'
  | 'leases'
  | 'recordReads'
  | 'eventLog'
  | 'usageLedger'
  | 'conversationLog'
  | 'mailbox'
  | 'tasks'
  | 'teamLifecycle'
  | 'budgets';
