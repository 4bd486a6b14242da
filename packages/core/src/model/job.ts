import type { Timestamp } from '../ports/clock.js';
import type { ChangeWait, WAKE_KIND } from './change-wait.js';
import type { ConversationId, JobId, MemberId, OwnerId, RunId, TeamId } from './ids.js';
import type { TurnMessage } from './team-message.js';

/**
 * A job is a REQUEST (work asked of a member), a RECEIPT (a result delivered back), a MESSAGE (a
 * follow-up turn started by team messages) or a BROADCAST_RECEIPT (the one receipt a broadcaster
 * gets when every broadcast request has finished).
 */
export const JobKind = {
  REQUEST: 'REQUEST',
  RECEIPT: 'RECEIPT',
  MESSAGE: 'MESSAGE',
  BROADCAST_RECEIPT: 'BROADCAST_RECEIPT',
} as const;
export type JobKind = (typeof JobKind)[keyof typeof JobKind];

/**
 * The public statuses of the contract. WAITING_CHANGE: paused in `wait_for_change`, holding no
 * active slot; it resumes on a team change or its deadline.
 */
export const JobStatus = {
  QUEUED: 'QUEUED',
  RUNNING: 'RUNNING',
  RESUMING: 'RESUMING',
  CANCELLING: 'CANCELLING',
  WAITING_INPUT: 'WAITING_INPUT',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  WAITING_CHANGE: 'WAITING_CHANGE',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/**
 * The state-machine state of a job: the public status, with QUEUED and RESUMING split in two.
 * `QUEUED` = waiting for admission, input not frozen; `ADMITTING` = input frozen and the runtime
 * called (or about to be), acknowledgement not yet recorded. `ANSWERED` = a person's answer is
 * persisted and waits for a slot (it shows as RESUMING); `RESUMING` = it is being submitted.
 * `WAITING_CHANGE` = paused in `wait_for_change` (shows as itself; holds no slot).
 * See `jobs/job-machine.ts`.
 */
export const JobPhase = {
  QUEUED: 'QUEUED',
  ADMITTING: 'ADMITTING',
  RUNNING: 'RUNNING',
  RESUMING: 'RESUMING',
  CANCELLING: 'CANCELLING',
  WAITING_INPUT: 'WAITING_INPUT',
  ANSWERED: 'ANSWERED',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  WAITING_CHANGE: 'WAITING_CHANGE',
} as const;
export type JobPhase = (typeof JobPhase)[keyof typeof JobPhase];

/** Kinds of input a waiting job asks a person for. */
export const InputKind = { CLARIFICATION: 'CLARIFICATION', INTERRUPT: 'INTERRUPT' } as const;
export type InputKind = (typeof InputKind)[keyof typeof InputKind];

/** What a waiting job asks for. */
export type InputRequest =
  | {
      readonly kind: typeof InputKind.CLARIFICATION;
      /** Identifies this question, so an answer for an older one is refused (INPUT_CHANGED). */
      readonly requestId: string;
      /** At most 8,000 UTF-8 bytes. */
      readonly question: string;
    }
  | {
      readonly kind: typeof InputKind.INTERRUPT;
      readonly requestId: string;
      readonly payload: unknown;
    };

/** An accepted answer waiting to be submitted to the runtime (persisted before the call). */
export interface PendingResponse {
  /** Idempotency key of the continuation run. */
  readonly runKey: string;
  /** The `requestId` of the {@link InputRequest} it answers (or of the woken {@link ChangeWait}). */
  readonly inputRequestId: string;
  /** What it answers: a person's clarification or interrupt, or `CHANGE`, a woken wait. */
  readonly kind: InputKind | typeof WAKE_KIND;
  /** Trimmed text for a clarification, any JSON value for an interrupt. */
  readonly value: unknown;
  readonly clientRequestId: string;
  /**
   * The human message a runtime writes into the member's conversation: it names the question
   * (or interrupt) it answers, then the answer. Absent on answers stored before it existed.
   */
  readonly message?: string;
}

/** The bounded answer kept on a job. */
export interface JobResult {
  /** At most 6,000 UTF-8 bytes (plus the truncation notice when cut). */
  readonly text: string;
  /** True when the answer was cut; null when unknown. */
  readonly truncated: boolean | null;
}

/** Who asked: a person (member null) or a member's conversation. */
export interface Requester {
  readonly memberId: MemberId | null;
  readonly conversationId: ConversationId | null;
}

/**
 * The frozen input of a turn: everything the runtime needs, persisted before the runtime is
 * called, so a restart re-submits exactly the same input with the same key.
 */
export interface TurnInput {
  /** `message`: a follow-up turn of team messages (a MESSAGE job); `broadcast_receipt`: a broadcast's receipt. */
  readonly kind: 'request' | 'receipt' | 'answer' | 'message' | 'broadcast_receipt';
  readonly jobId: JobId;
  readonly teamId: TeamId;
  /** The text of the turn: task text, receipt payload text, or the answer. */
  readonly text: string;
  /** Display name of the member whose conversation runs the turn. */
  readonly memberName: string;
  /** That member's role, for its instructions; null without one, absent on inputs frozen before roles. */
  readonly memberRole?: string | null;
  /** True when that member is the team's lead (it is offered the lead's tools); absent means false. */
  readonly memberIsLead?: boolean;
  /** The requesting member's name, null for a person. */
  readonly requesterName: string | null;
  /** For a receipt: the member who did the work, its status and answer. */
  readonly receipt: {
    readonly requestId: JobId;
    readonly fromMemberName: string;
    readonly status: string;
    readonly result: string;
  } | null;
  /** The bounded shared context at freeze time, as JSON data (never instructions). */
  readonly context: unknown;
  /**
   * Team messages delivered into this turn, oldest first: each reaches the conversation as a
   * user-role entry before the turn's own text. Absent on inputs frozen before the mailbox.
   */
  readonly messages?: readonly TurnMessage[];
}

/** A request or receipt. */
export interface Job {
  readonly id: JobId;
  readonly teamId: TeamId;
  readonly owner: OwnerId;
  readonly kind: JobKind;
  readonly phase: JobPhase;
  /** Global creation order (monotonic across the database). */
  readonly seq: number;
  /** Who executes it (for a receipt: the requesting member it is delivered to). */
  readonly memberId: MemberId | null;
  /** The conversation the job runs in. */
  readonly conversationId: ConversationId;
  readonly requester: Requester;
  /** REQUEST: the job whose run sent this handoff; RECEIPT: the request it delivers. */
  readonly parentId: JobId | null;
  /** The first request of the chain. */
  readonly rootId: JobId;
  /** Idempotency key given by the sender (`clientRequestId`, or a member's `request_id`). */
  readonly clientKey: string;
  /** Task text (REQUEST) or the delivered result (RECEIPT). */
  readonly text: string;
  /** Frozen turn input; set when admission begins. */
  readonly input: TurnInput | null;
  /** Idempotency key of the current runtime call (the job id for the first admission). */
  readonly runKey: string | null;
  readonly runId: RunId | null;
  /** What the job waits for (WAITING_INPUT), or the question a RESUMING job answered. */
  readonly pendingInput: InputRequest | null;
  /** An accepted answer not yet acknowledged by the runtime (RESUMING). */
  readonly pendingResponse: PendingResponse | null;
  /** The wait of a WAITING_CHANGE job; null (or absent) otherwise. */
  readonly wait?: ChangeWait | null;
  readonly result: JobResult | null;
  readonly error: string | null;
  /**
   * Why a FAILED or CANCELLED job ended, when the system knows (`JobErrorCode`); also set on a
   * CANCELLING job (who asked). Null otherwise, and on jobs stored before the column existed.
   */
  readonly errorCode: string | null;
  readonly createdAt: Timestamp;
  readonly startedAt: Timestamp | null;
  readonly finishedAt: Timestamp | null;
  /** Last time the job changed. */
  readonly updatedAt: Timestamp;
}

/**
 * A job as a page of jobs, and any read that never needs the input, reads it: every field but its
 * frozen {@link Job.input}. The input holds the turn's whole team context (up to about 35 KB of
 * JSON) and stays stored after the job ends, while nothing those reads feed shows it: a page of 100
 * finished jobs read and parsed about a megabyte for nothing (decision 0246). A whole {@link Job}
 * is a `JobView` too.
 */
export type JobView = Omit<Job, 'input'>;

/**
 * The progress fields of a job that was never admitted: a new request or receipt, QUEUED.
 *
 * @remarks Spread it last in a job literal, never first. On Node 20 (V8 11) optimized code gives
 * a literal that begins with a spread and then adds keys a hidden class of its own per object:
 * each added key costs about a microsecond (17 µs per new job instead of 0.2), and every later
 * use of that job meets an object shape it has not seen (docs/benchmarks.md, thirteenth pass).
 */
export const UNADMITTED = {
  input: null,
  runKey: null,
  runId: null,
  pendingInput: null,
  pendingResponse: null,
  wait: null,
  result: null,
  error: null,
  errorCode: null,
  startedAt: null,
  finishedAt: null,
} as const satisfies Partial<Job>;

/** Phases that hold one of the active slots (waiting for input does not). */
export const ACTIVE_PHASES: readonly JobPhase[] = [
  JobPhase.ADMITTING,
  JobPhase.RUNNING,
  JobPhase.RESUMING,
  JobPhase.CANCELLING,
];

/** Terminal phases accept no command. */
export const TERMINAL_PHASES: readonly JobPhase[] = [JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.CANCELLED];

/** True when the job has finished (completed, failed or cancelled). */
export function isTerminal(phase: JobPhase): boolean {
  return TERMINAL_PHASES.includes(phase);
}

/**
 * The public status of a phase: ADMITTING shows as QUEUED (its run is not acknowledged) and
 * ANSWERED as RESUMING (the answer is accepted; it is submitted as soon as a slot is free).
 */
export function statusOf(phase: JobPhase): JobStatus {
  if (phase === JobPhase.ADMITTING) return JobStatus.QUEUED;
  if (phase === JobPhase.ANSWERED) return JobStatus.RESUMING;
  return phase;
}
