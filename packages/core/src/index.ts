// The one barrel of @agent-teams/core: explicit named exports only.

export { AdmissionJobError, admissionJobErrorOf } from './admission/admission-job-error.js';
export type { AdmissionPolicy, OwnerAdmission } from './admission/admission-policy.js';
export {
  AdmissionLimits,
  DEFAULT_ADMISSION_POLICY,
  DEFAULT_OWNER_ADMISSION,
  ownerAdmission,
  ownerCap,
  UNRESTRICTED_ADMISSION_POLICY,
} from './admission/admission-policy.js';
export type { AdmissionCandidate, AdmissionPlan, AdmissionSnapshot, RoundState } from './admission/admission-types.js';
export { EMPTY_ROUND, headsPerOwner } from './admission/admission-types.js';
export { planAdmissions, settledRound } from './admission/plan-admissions.js';
export type { MemberAgent } from './agents/member-agent.js';
export { memberAgent } from './agents/member-agent.js';
export type { BudgetedAnswer, BudgetRequest } from './budget/fit-to-budget.js';
export { fitToBudget, jsonBytes } from './budget/fit-to-budget.js';
export type { MemberContextJson, RecordContextJson, TeamContextJson } from './context/team-context.js';
export {
  buildTurnInput,
  fitContextMessages,
  fitTeamContext,
  recordToContextJson,
  teamContextJson,
} from './context/team-context.js';
export { ErrorCode } from './errors/codes.js';
export type { ErrorDetails, Result } from './errors/domain-error.js';
export { DomainError, err, isDomainError, notFound, ok } from './errors/domain-error.js';
export { boundAnswer } from './jobs/bound-answer.js';
export {
  BROADCAST_CUT_MARK,
  BROADCAST_KEY_PREFIX,
  BROADCAST_RECEIPT_BYTES,
  broadcastHeadings,
  broadcastReceipt,
  broadcastReceiptText,
  isBroadcastRequest,
} from './jobs/broadcast.js';
export type { FinalPhase, Finished } from './jobs/finish-job.js';
export { CANCELLED_AFTER_START, CANCELLED_BEFORE_START, timeoutMessage } from './jobs/finish-job.js';
export type { JobCommand, JobCommandType, JobEffect, NewReceipt } from './jobs/job-commands.js';
export { JOB_COMMAND_TYPES } from './jobs/job-commands.js';
export { JobErrorCode } from './jobs/job-error-code.js';
export type { TransitionContext, TransitionOutcome } from './jobs/job-machine.js';
export { JOB_TRANSITIONS, transition } from './jobs/job-machine.js';
export { checkFence, staleLease } from './jobs/lease-fence.js';
export type { NewJob } from './jobs/new-jobs.js';
export { messageTurnKey, queuedMessageJob, queuedReceipt, queuedRequest } from './jobs/new-jobs.js';
export type { TextLimit } from './limits/limits.js';
export { Limits, TRUNCATION_NOTICE } from './limits/limits.js';
export { mentionLabel } from './mentions/mention-label.js';
export type { AgentDefinition } from './model/agent.js';
export type { ChangeJson, ChangeWait, ChangeWaitPlan, WakeResultJson } from './model/change-wait.js';
export { WAKE_CHANGES_MAX, WAKE_KIND, wakeResult, wakesWaiter } from './model/change-wait.js';
export type {
  AgentId,
  Brand,
  ConversationId,
  IdGenerator,
  JobId,
  MemberId,
  MessageId,
  OwnerId,
  RecordId,
  RunId,
  TeamId,
} from './model/ids.js';
export {
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asMessageId,
  asOwnerId,
  asRecordId,
  asRunId,
  asTeamId,
  IdKind,
} from './model/ids.js';
export type { InputRequest, Job, JobResult, JobView, PendingResponse, Requester, TurnInput } from './model/job.js';
export {
  ACTIVE_PHASES,
  InputKind,
  isTerminal,
  JobKind,
  JobPhase,
  JobStatus,
  statusOf,
  TERMINAL_PHASES,
} from './model/job.js';
export type { ConversationState } from './model/member-status.js';
export { deriveMemberStatus } from './model/member-status.js';
export type { RecordMessage } from './model/record.js';
export { RecordKind } from './model/record.js';
export type { Member, Team } from './model/team.js';
export { MemberStatus, TeamStatus } from './model/team.js';
export type { MessageDeliveryState, TeamMessage, TurnMessage } from './model/team-message.js';
export { MessageDelivery, teamMessageEntry, teamMessageHeading } from './model/team-message.js';
export type { UsageEntry, UsageScope, UsageTotals } from './model/usage.js';
export { addUsage, NO_USAGE, usageScopeKey } from './model/usage.js';
export type { CursorField, CursorPosition } from './pagination/cursor.js';
export { decodeCursor, encodeCursor, hashFilter, pageSize } from './pagination/cursor.js';
export type { AgentCatalog } from './ports/agent-catalog.js';
export type {
  AgentRuntime,
  EndedRunState,
  MemberToolPort,
  ResumeRunArgs,
  RunContext,
  RunProgress,
  RunState,
  RuntimeFailureKind,
  RuntimeNotice,
  StartRunArgs,
} from './ports/agent-runtime.js';
export { RuntimeError } from './ports/agent-runtime.js';
export type { Clock, Timestamp } from './ports/clock.js';
export { nowTimestamp, toTimestamp } from './ports/clock.js';
export type { CommittedRows, EventSink, PublishWindow, TeamEvent } from './ports/event-sink.js';
export { TeamEventKind, teamChangedEvent } from './ports/event-sink.js';
export type {
  Admission,
  AdmitArgs,
  AdmittedJob,
  Budgets,
  ChangeTaskArgs,
  ClaimArgs,
  ClaimedJobs,
  CloseTeamArgs,
  ConversationLog,
  ConversationMessage,
  EnqueueDecision,
  EnqueueRequestsArgs,
  EnqueueSnapshot,
  EventLog,
  FreezeContext,
  InterruptTurnArgs,
  JobFilter,
  JobLease,
  JobReads,
  JobWrites,
  LeasedJob,
  Leases,
  Mailbox,
  MailboxDecision,
  MailboxSnapshot,
  NewConversationMessage,
  NewestFirstPage,
  NewestFirstPageRequest,
  NewMember,
  NewMessageJob,
  NewRequest,
  NewTeam,
  NewTeamMessage,
  RecordedToolRequest,
  RecordReads,
  RenewLeaseArgs,
  ReserveSpendArgs,
  RespondToJobArgs,
  RetireMemberArgs,
  SendMessageArgs,
  SentMessage,
  SeqPage,
  SeqPageRequest,
  SpawnMemberArgs,
  StoreRole,
  TakenOverJob,
  TaskFilter,
  Tasks,
  TeamLifecycle,
  TeamReadFilter,
  TeamReads,
  TeamStore,
  TeamWrites,
  ToolRequest,
  UpdateJobOptions,
  UsageLedger,
} from './ports/team-store.js';
export type {
  ActivityResult,
  CancelOutcome,
  Connection,
  Core,
  CoreDeps,
  CreateTeamInput,
  JobPage,
  Logger,
  MemberInput,
  MentionTargetView,
  PageArgs,
  RespondInput,
  RuntimeRegistry,
  SendMessageInput,
  SendRequestInput,
  SpawnMemberInput,
  TeamCapacity,
  TeamContextView,
} from './services/core-types.js';
export { createCore } from './services/create-core.js';
export type { HandoffHop } from './services/handoff-decisions.js';
export { chainHops, decideHandoff, repeatsAncestor } from './services/handoff-decisions.js';
export type { SendMemberArgs, ToolCaller } from './services/handoff-service.js';
export { findJobViews } from './services/job-views.js';
export {
  cancelStep,
  checkSpawnRoom,
  forkSeed,
  type LifecycleActor,
  MEMBERS_EVER_PER_TEAM,
  SpawnContext,
} from './services/lifecycle-decisions.js';
export type { DroppedTurnContext, MessagePlan } from './services/message-decisions.js';
export { decideMessage, followUpAfterDroppedTurn } from './services/message-decisions.js';
export type { MessageSend } from './services/message-service.js';
export type { RequestPlan, RequestRecipient } from './services/request-decisions.js';
export { decideRequests } from './services/request-decisions.js';
export type { ResponseRequest } from './services/respond-service.js';
export { answerRunKey, decideResponse } from './services/respond-service.js';
export {
  answerMessage,
  checkResponse,
  invalidResponse,
  isAnswerReplay,
  isSafeToInspect,
  isWellFormedJson,
  responseFingerprint,
} from './services/respond-validation.js';
export type { CreateTaskInput, TaskUseCases, TaskWriteInput, UpdateTaskInput } from './services/task-service.js';
export type { SpendDecision, SpendRefusal, SpendSnapshot } from './spend/decide-spend.js';
export { decideSpend } from './spend/decide-spend.js';
export type {
  BudgetPolicy,
  OwnerDayBudget,
  Spend,
  SpendReservation,
  TeamBudget,
  TeamBudgetLimits,
} from './spend/spend-types.js';
export { BudgetLimits, NO_BUDGET_POLICY, ownerDayBudget, utcDay, utcDayBounds } from './spend/spend-types.js';
export { releaseReason } from './tasks/release-reason.js';
export type { Task, TaskActor, TaskId, TaskWarning } from './tasks/task.js';
export { asTaskId, isFinishedTask, TaskStatus } from './tasks/task.js';
export { decideTask } from './tasks/task-board.js';
export type { TaskBoard, TaskChange, TaskCommand, TaskCommandType } from './tasks/task-command.js';
export { findCycle, MAX_SCOPE_WARNINGS, scopeOverlaps, scopesOverlap } from './tasks/task-graph.js';
export {
  validateDependsOn,
  validateRevision,
  validateTaskDetails,
  validateTaskResult,
  validateTaskTitle,
  validateWriteScope,
} from './tasks/task-input.js';
export type { TaskListArgs } from './tasks/task-list.js';
export type { TaskJson } from './tasks/task-views.js';
export { taskJson, warningJson } from './tasks/task-views.js';
export { releasedClaims } from './tasks/task-writes.js';
export type { TruncatedText } from './text/text-measure.js';
export {
  codePointLength,
  cutUtf16,
  exceedsCodePoints,
  findUnstorableText,
  hasLoneSurrogate,
  isStorableText,
  truncateUtf8,
  utf8ByteLength,
} from './text/text-measure.js';
export { checkText, validateClientRequestId, validateRole, validateText } from './text/validate-text.js';
export { LEAD_ONLY_TOOLS, LIFECYCLE_TOOL_SPECS } from './tools/lifecycle-tool-specs.js';
export type {
  MemberToolName,
  MemberToolSpec,
  ToolArgumentSchema,
  ToolInputSchema,
} from './tools/member-tool-specs.js';
export { MEMBER_TOOL_SPECS } from './tools/member-tool-specs.js';
export { MEMBER_TOOL_NAMES } from './tools/member-tools.js';
export type { OutsideWait } from './tools/outside-wait.js';
export type { ParsedTeamRead, ReadFieldNames, TeamReadArgs, TeamReadList } from './tools/read-args.js';
export { parseTeamRead } from './tools/read-args.js';
export type {
  HistoryPageView,
  JobResultView,
  ResultPageView,
  ResultRecordView,
  ResultSummaryView,
} from './tools/result-views.js';
export { excerptOf, jobResultOf } from './tools/result-views.js';
export { foldSearchText, matchesFolded } from './tools/search-fold.js';
export type { TaskToolName } from './tools/task-tools.js';
export { decideKeyedTask, isTaskTool, TASK_TOOL_NAMES, toolErrorExtras } from './tools/task-tools.js';
export type { TeamReadAnswer } from './tools/team-reads.js';
export { toolReplayConflict, toolRequestKey, toolRequestOf } from './tools/tool-requests.js';
