import type { ChangeWait } from '../model/change-wait.js';
import type { ConversationId, IdGenerator, JobId, MemberId, RunId } from '../model/ids.js';
import type { InputRequest, PendingResponse, TurnInput } from '../model/job.js';
import type { RecordKind } from '../model/record.js';
import type { JobErrorCode } from './job-error-code.js';

/** Commands the job state machine accepts (see the table in `job-machine.ts`). */
export type JobCommand =
  /** Admission begins: persist the frozen input and run key before calling the runtime. */
  | { readonly type: 'FREEZE'; readonly input: TurnInput; readonly runKey: string }
  /** The runtime acknowledged the start of the first run. */
  | { readonly type: 'ACKNOWLEDGE'; readonly runId: RunId }
  /** The run ended asking a person (clarification or interrupt). */
  | { readonly type: 'ASK_INPUT'; readonly input: InputRequest }
  /** The run ended in `wait_for_change`: the job pauses, holding no slot (decision 0165). */
  | { readonly type: 'AWAIT_CHANGE'; readonly wait: ChangeWait }
  /** Admission gave a woken wait a slot: submit its result (`response.kind` CHANGE) like an answer. */
  | { readonly type: 'WAKE'; readonly response: PendingResponse }
  /** A person answered; the answer is persisted before the runtime is called. */
  | { readonly type: 'RESPOND'; readonly response: PendingResponse }
  /** Admission gave an answered job a slot: submit the persisted answer. */
  | { readonly type: 'RESUME' }
  /** The runtime acknowledged the continuation run. */
  | { readonly type: 'RESUMED'; readonly runId: RunId }
  /** The run ended with an answer. */
  | { readonly type: 'COMPLETE'; readonly answer: string }
  /** The run or the runtime failed for this job. */
  | { readonly type: 'FAIL'; readonly error: string; readonly code?: JobErrorCode }
  /** The turn passed its deadline; the run is cancelled and the job fails. */
  | { readonly type: 'TIME_OUT'; readonly timeoutMs: number }
  /**
   * A person (or the system) asked to cancel; `code` says who (default `CANCELLED_BY_PERSON`).
   * With `reason` (an interrupt), the job ends CANCELLED with the reason as its error instead of
   * the standard notice.
   */
  | { readonly type: 'CANCEL'; readonly reason?: string; readonly code?: JobErrorCode }
  /** The runtime confirmed the run stopped. */
  | { readonly type: 'CANCEL_CONFIRMED' };

/** The names of {@link JobCommand}s. */
export type JobCommandType = JobCommand['type'];

/** All command names, for walking the transition table. */
export const JOB_COMMAND_TYPES: readonly JobCommandType[] = [
  'FREEZE',
  'ACKNOWLEDGE',
  'ASK_INPUT',
  'AWAIT_CHANGE',
  'WAKE',
  'RESPOND',
  'RESUME',
  'RESUMED',
  'COMPLETE',
  'FAIL',
  'TIME_OUT',
  'CANCEL',
  'CANCEL_CONFIRMED',
];

/** A receipt to create in the same transaction as the request's terminal state. */
export interface NewReceipt {
  readonly id: JobId;
  /** The requesting member, who receives the result. */
  readonly memberId: MemberId | null;
  readonly conversationId: ConversationId;
  /** JSON text: `{ request_id, from_member, status, result }`. */
  readonly text: string;
}

/**
 * Side effects of a transition, as data, interpreted in one place: the store writes them in the
 * same transaction as the job.
 *
 * @remarks There are no runtime effects (start, resume, cancel a run): what a runtime must do
 * follows from the persisted phase alone (`ADMITTING` means "start the frozen turn"), which the
 * scheduler reads again after every restart anyway, so it is the one source of truth
 * (`docs/decisions/0110-effects-are-persistent-only.md`).
 */
export type JobEffect =
  | {
      readonly type: 'APPEND_RECORD';
      readonly kind: RecordKind;
      readonly memberId: MemberId | null;
      readonly fromMemberId: MemberId | null;
      readonly text: string;
      readonly truncated: boolean;
    }
  | { readonly type: 'CREATE_RECEIPT'; readonly receipt: NewReceipt };

/** What the machine needs besides the job and the command. */
export interface TransitionContext {
  /** ISO timestamp from the clock port. */
  readonly now: string;
  /** Mints the receipt id. */
  readonly ids: IdGenerator;
}
