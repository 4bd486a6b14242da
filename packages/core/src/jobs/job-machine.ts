import type { DomainError } from '../errors/domain-error.js';
import type { IdGenerator } from '../model/ids.js';
import { type Job, JobPhase } from '../model/job.js';
import type { JobCommand, JobCommandType, JobEffect } from './job-commands.js';

/**
 * The job state machine as data: `JOB_TRANSITIONS[phase][command]` is the next phase.
 *
 * - QUEUED: accepted, waiting for admission; input not frozen. Entered on enqueue (requests and
 *   receipts). Cancelling it ends it at once.
 * - ADMITTING: admission began: the frozen input and run key are persisted and the runtime is
 *   being (or was) called, but its acknowledgement is not recorded. Holds a slot; on restart it
 *   is started again with the same key and input (the runtime returns the run it already has).
 * - RUNNING: the runtime acknowledged a run; the scheduler observes it.
 * - WAITING_INPUT: the run ended asking a person. Holds no slot but keeps its conversation.
 * - RESUMING: an answer is persisted and being submitted with its own key. Holds a slot.
 * - CANCELLING: cancellation was asked of an admitted job; ends when the runtime confirms.
 * - COMPLETED / FAILED / CANCELLED: terminal; they accept nothing.
 */
export const JOB_TRANSITIONS: Readonly<Record<JobPhase, Partial<Readonly<Record<JobCommandType, JobPhase>>>>> = {
  [JobPhase.QUEUED]: {
    FREEZE: JobPhase.ADMITTING,
    CANCEL: JobPhase.CANCELLED,
    FAIL: JobPhase.FAILED,
  },
  [JobPhase.ADMITTING]: {
    ACKNOWLEDGE: JobPhase.RUNNING,
    FAIL: JobPhase.FAILED,
    TIME_OUT: JobPhase.FAILED,
    CANCEL: JobPhase.CANCELLING,
  },
  [JobPhase.RUNNING]: {
    ASK_INPUT: JobPhase.WAITING_INPUT,
    COMPLETE: JobPhase.COMPLETED,
    FAIL: JobPhase.FAILED,
    TIME_OUT: JobPhase.FAILED,
    CANCEL: JobPhase.CANCELLING,
  },
  [JobPhase.WAITING_INPUT]: {
    RESPOND: JobPhase.RESUMING,
    CANCEL: JobPhase.CANCELLING,
  },
  [JobPhase.RESUMING]: {
    RESUMED: JobPhase.RUNNING,
    FAIL: JobPhase.FAILED,
    TIME_OUT: JobPhase.FAILED,
    CANCEL: JobPhase.CANCELLING,
  },
  [JobPhase.CANCELLING]: {
    // A start or continuation acknowledged while cancellation is pending records its run id
    // (so it can be cancelled) and stays CANCELLING.
    ACKNOWLEDGE: JobPhase.CANCELLING,
    RESUMED: JobPhase.CANCELLING,
    CANCEL_CONFIRMED: JobPhase.CANCELLED,
    // The run ended on its own before it could be stopped: still CANCELLED, never a result.
    COMPLETE: JobPhase.CANCELLED,
    FAIL: JobPhase.CANCELLED,
    ASK_INPUT: JobPhase.CANCELLED,
  },
  [JobPhase.COMPLETED]: {},
  [JobPhase.FAILED]: {},
  [JobPhase.CANCELLED]: {},
};

/** What the machine needs besides the job and the command. */
export interface TransitionContext {
  /** ISO timestamp from the clock port. */
  readonly now: string;
  /** Mints the receipt id. */
  readonly ids: IdGenerator;
}

/** The next job and its effects, or a typed refusal (INVALID_TRANSITION and friends). */
export type TransitionOutcome =
  | { readonly ok: true; readonly job: Job; readonly effects: readonly JobEffect[] }
  | { readonly ok: false; readonly error: DomainError };

export type { JobCommand };
