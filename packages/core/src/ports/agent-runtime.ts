import type { JobErrorCode } from '../jobs/job-error-code.js';
import type { AgentDefinition } from '../model/agent.js';
import type { ChangeWait, ChangeWaitPlan } from '../model/change-wait.js';
import type { ConversationId, JobId, MemberId, RunId, TeamId } from '../model/ids.js';
import type { InputRequest, PendingResponse, TurnInput } from '../model/job.js';

/** The observable state of one run. */
export type RunState =
  | { readonly state: 'running' }
  | { readonly state: 'completed'; readonly answer: string }
  | { readonly state: 'waiting'; readonly input: InputRequest }
  /** The run paused in `wait_for_change`; it continues through `resume` with the wake-up result. */
  | { readonly state: 'waiting_change'; readonly wait: ChangeWait }
  /** `code`: why, when the runtime knows (`PROVIDER_UNAVAILABLE`, `BUDGET_EXHAUSTED`); default `RUNTIME_ERROR`. */
  | { readonly state: 'failed'; readonly error: string; readonly code?: JobErrorCode }
  | { readonly state: 'cancelled' };

/** How a run ended, or that it waits for a person: every {@link RunState} but `running`. */
export type EndedRunState = Exclude<RunState, { readonly state: 'running' }>;

/**
 * Why a runtime call failed, so the scheduler can choose: `transient` (timeout, 429, 5xx: retry
 * with the same key), `rejected` (this job cannot run: fail it), `access` (revoked credentials:
 * disconnect the team) or `ambiguous` (the outcome is unknown: disconnect, keep the slot).
 */
export type RuntimeFailureKind = 'transient' | 'rejected' | 'access' | 'ambiguous';

/** A runtime call failure the scheduler can classify. */
export class RuntimeError extends Error {
  readonly kind: RuntimeFailureKind;
  constructor(kind: RuntimeFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RuntimeError';
    this.kind = kind;
  }
}

/** Progress a running job reports (not stored; feeds `jobProgress`). */
export type RunProgress =
  | { readonly type: 'text'; readonly runId: RunId; readonly jobId: JobId; readonly delta: string }
  | { readonly type: 'tool'; readonly runId: RunId; readonly jobId: JobId; readonly name: string };

/** Notifications a runtime pushes; `settled` only wakes the scheduler, which then polls. */
export type RuntimeNotice =
  | { readonly type: 'settled'; readonly runId: RunId }
  | { readonly type: 'progress'; readonly progress: RunProgress };

/** The member tools as a runtime sees them: bound to the job whose turn is running. */
export interface MemberToolPort {
  /** Calls a member tool by name with JSON arguments; answers JSON or throws a DomainError. */
  invoke(name: string, args: unknown): Promise<unknown>;
  /**
   * Issues a member-run token for this job, for an agent that runs outside the server: it calls
   * `invokeTeamTool` with `Authorization: Bearer <token>`. The token works only while the job is
   * unfinished and only for its team. Absent where the server issues no tokens.
   */
  issueToken?(): Promise<string>;
  /**
   * Checks a `wait_for_change` call's arguments for this job and plans the wait (its `after_seq`,
   * default the team's seq now, and deadline). The runtime then ends the run `waiting_change`
   * with the plan and its own request id. Throws a DomainError for bad arguments or a closed run.
   * Absent where waits are not offered.
   */
  planWait?(args: unknown): Promise<ChangeWaitPlan>;
}

/** Identity of the turn a runtime runs, for tool calls and logs. */
export interface RunContext {
  readonly teamId: TeamId;
  /** The member whose conversation runs the turn. */
  readonly memberId: MemberId;
  readonly jobId: JobId;
  readonly conversationId: ConversationId;
  readonly agent: AgentDefinition;
  /** Member tools bound to this job (handoffs, history, results). */
  readonly tools: MemberToolPort;
}

/** What {@link AgentRuntime.start} is called with: the frozen turn under its idempotency key. */
export interface StartRunArgs {
  readonly runKey: string;
  /**
   * The frozen turn, read-only: the store may hand the same objects to later reads of the job and
   * to its team's other jobs frozen with it, and freezes them (a change throws in strict mode).
   */
  readonly input: TurnInput;
  readonly context: RunContext;
  /** See {@link ResumeRunArgs.firstCall}. */
  readonly firstCall?: boolean;
}

/** What {@link AgentRuntime.resume} is called with: a person's answer to a waiting run, under its own key. */
export interface ResumeRunArgs {
  readonly runKey: string;
  readonly runId: RunId;
  readonly response: PendingResponse;
  readonly context: RunContext;
  /**
   * True when no call with this key can have been made before: the caller's own admission moved
   * the job into this phase in the commit just before (a key is never submitted before that), and
   * no other server can have claimed the job since. A runtime may then skip looking the key up;
   * one that ignores this stays correct.
   */
  readonly firstCall?: boolean;
}

/**
 * Port: drives agent turns. Every call is idempotent by its key: the same `runKey` returns the
 * same run, also after a restart. Calls must return quickly (the scheduler bounds each one to
 * 10 s); the run itself continues in the background and is observed with `poll`.
 */
export interface AgentRuntime {
  /** Runtime name as used in the config file (`scripted`, `openai`, ...). */
  readonly name: string;
  /** Creates the member's conversation if it does not exist; leaves an existing one unchanged. */
  ensureConversation(args: { conversationId: ConversationId; agent: AgentDefinition; title: string }): Promise<void>;
  /** Starts a turn with the frozen input. */
  start(args: StartRunArgs): Promise<{ runId: RunId }>;
  /** Continues a waiting run with a person's answer. */
  resume(args: ResumeRunArgs): Promise<{ runId: RunId }>;
  /**
   * Optional: makes a started run durable. A runtime may keep a new run in memory until its first
   * step is written (one commit instead of two); the scheduler calls this before it records the
   * run's id on the job, so a restart never finds a recorded run the runtime does not know.
   * Resolves at once when the run is already durable (or the runtime never delays it).
   */
  persist?(args: { runId: RunId; context: RunContext }): Promise<void>;
  /** Reads the state of a run. A run unknown to the runtime answers `failed`. */
  poll(args: { runId: RunId; context: RunContext }): Promise<RunState>;
  /** Asks the run to stop; completion is confirmed by a later `poll` answering `cancelled`. */
  cancel(args: { runId: RunId; context: RunContext }): Promise<void>;
  /** Registers for pushed notices; returns an unsubscribe function. */
  subscribe(listener: (notice: RuntimeNotice) => void): () => void;
}
