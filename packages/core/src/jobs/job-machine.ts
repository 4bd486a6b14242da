import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { InputKind, type InputRequest, type Job, JobPhase } from '../model/job.js';
import { truncateUtf8 } from '../text/text-measure.js';
import {
  CANCELLED_AFTER_START,
  CANCELLED_BEFORE_START,
  cancelJob,
  completeJob,
  type Finished,
  failJob,
  timeoutMessage,
} from './finish-job.js';
import type { JobCommand, JobCommandType, JobEffect, TransitionContext } from './job-commands.js';
import { JobErrorCode } from './job-error-code.js';

/**
 * The job state machine as data: `JOB_TRANSITIONS[phase][command]` is the next phase.
 *
 * - QUEUED: accepted, waiting for admission; input not frozen. Entered on enqueue (requests and
 *   receipts). Cancelling it ends it at once.
 * - ADMITTING: admission began: the frozen input and run key are persisted and the runtime is
 *   being (or was) called, but its acknowledgement is not recorded. Holds a slot; on restart it
 *   is started again with the same key and input (the runtime returns the run it already has).
 * - RUNNING: the runtime acknowledged a run; the scheduler observes it.
 * - WAITING_INPUT: the run ended asking a person. Holds no slot but keeps its conversation;
 *   cancelling it ends it at once (its run already ended), which releases the conversation.
 * - ANSWERED: a person's answer is persisted; it waits, like QUEUED, for admission to give it a
 *   slot (so answering never pushes the active count past the limit). Shows as RESUMING.
 * - RESUMING: an answer is persisted and being submitted with its own key. Holds a slot.
 * - CANCELLING: cancellation was asked of an admitted job; ends when the runtime confirms.
 * - WAITING_CHANGE: the run ended in `wait_for_change` (AWAIT_CHANGE from RUNNING). Holds no
 *   slot but keeps its conversation, like WAITING_INPUT. Admission wakes it (WAKE, straight to
 *   RESUMING, since admission is what hands out the slot) once the team has a change after the
 *   wait's seq or its deadline passed; cancelling it ends it at once (its run already ended).
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
    AWAIT_CHANGE: JobPhase.WAITING_CHANGE,
    COMPLETE: JobPhase.COMPLETED,
    FAIL: JobPhase.FAILED,
    TIME_OUT: JobPhase.FAILED,
    CANCEL: JobPhase.CANCELLING,
  },
  [JobPhase.WAITING_INPUT]: {
    RESPOND: JobPhase.ANSWERED,
    CANCEL: JobPhase.CANCELLED,
  },
  [JobPhase.ANSWERED]: {
    RESUME: JobPhase.RESUMING,
    CANCEL: JobPhase.CANCELLED,
    FAIL: JobPhase.FAILED,
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
    AWAIT_CHANGE: JobPhase.CANCELLED,
  },
  [JobPhase.WAITING_CHANGE]: {
    WAKE: JobPhase.RESUMING,
    CANCEL: JobPhase.CANCELLED,
    FAIL: JobPhase.FAILED,
  },
  [JobPhase.COMPLETED]: {},
  [JobPhase.FAILED]: {},
  [JobPhase.CANCELLED]: {},
};

/**
 * The next job and its persistent effects (the store writes them in the same transaction), or a
 * typed refusal (INVALID_TRANSITION and friends). */
export type TransitionOutcome =
  | { readonly ok: true; readonly job: Job; readonly effects: readonly JobEffect[] }
  | { readonly ok: false; readonly error: DomainError };

export type { JobCommand, TransitionContext };

const accept = (job: Job, effects: readonly JobEffect[] = []): TransitionOutcome => ({ ok: true, job, effects });
const done = (finished: Finished): TransitionOutcome => ({ ok: true, ...finished });
const refuse = (error: DomainError): TransitionOutcome => ({ ok: false, error });

/** A clarification question is stored cut to its budget; an interrupt payload is kept as given. */
function boundQuestion(input: InputRequest): InputRequest {
  if (input.kind !== InputKind.CLARIFICATION) return input;
  return { ...input, question: truncateUtf8(input.question, Limits.questionBytes).text };
}

/**
 * Applies one command to a job. Pure: returns the next job (with `updatedAt = ctx.now`) and the
 * record and receipt its step writes, or INVALID_TRANSITION when the table has no row for (phase, command), or
 * INPUT_CHANGED when an answer is for a question that is no longer pending. A refusal never
 * changes the job.
 */
export function transition(job: Job, command: JobCommand, ctx: TransitionContext): TransitionOutcome {
  // `?.`: a phase this build does not know (a row another build or a hand wrote) is refused like
  // any other, where indexing it threw a TypeError out of every caller (closing its team too).
  const target = JOB_TRANSITIONS[job.phase]?.[command.type];
  if (target === undefined) {
    return refuse(
      new DomainError(ErrorCode.INVALID_TRANSITION, `A ${job.phase} job does not accept ${command.type}.`, {
        phase: job.phase,
        command: command.type,
      }),
    );
  }
  const now = ctx.now;
  // The run ended on its own while cancellation was pending: the outcome is discarded.
  const endsCancelled = job.phase === JobPhase.CANCELLING && target === JobPhase.CANCELLED;
  switch (command.type) {
    case 'FREEZE':
      return accept({
        ...job,
        phase: target,
        input: command.input,
        runKey: command.runKey,
        startedAt: job.startedAt ?? now,
        updatedAt: now,
      });
    case 'ACKNOWLEDGE':
    case 'RESUMED': {
      const answered = command.type === 'RESUMED' ? { pendingInput: null, pendingResponse: null } : {};
      return accept({ ...job, ...answered, phase: target, runId: command.runId, updatedAt: now });
    }
    case 'ASK_INPUT':
      if (endsCancelled) return done(cancelJob(job, CANCELLED_AFTER_START, ctx));
      return accept({ ...job, phase: target, pendingInput: boundQuestion(command.input), updatedAt: now });
    case 'AWAIT_CHANGE':
      if (endsCancelled) return done(cancelJob(job, CANCELLED_AFTER_START, ctx));
      return accept({ ...job, phase: target, wait: command.wait, updatedAt: now });
    case 'WAKE': {
      if (job.wait == null || job.wait.requestId !== command.response.inputRequestId) {
        return refuse(
          new DomainError(ErrorCode.INVALID_TRANSITION, 'This wake-up is not for the pending wait.', {
            phase: job.phase,
            command: command.type,
          }),
        );
      }
      // `updatedAt` starts the continuation's deadline, as RESUME does.
      const { response } = command;
      return accept({
        ...job,
        phase: target,
        wait: null,
        pendingResponse: response,
        runKey: response.runKey,
        updatedAt: now,
      });
    }
    case 'RESPOND': {
      const pending = job.pendingInput;
      if (pending === null || pending.requestId !== command.response.inputRequestId) {
        return refuse(
          new DomainError(ErrorCode.INPUT_CHANGED, 'The question this answer was for is no longer pending.', {
            field: 'inputRequestId',
          }),
        );
      }
      const { response } = command;
      return accept({ ...job, phase: target, pendingResponse: response, runKey: response.runKey, updatedAt: now });
    }
    case 'RESUME': {
      if (job.pendingResponse === null) {
        return refuse(
          new DomainError(ErrorCode.INVALID_TRANSITION, 'An answered job has no pending answer.', {
            phase: job.phase,
            command: command.type,
          }),
        );
      }
      // `updatedAt` starts the continuation's deadline.
      return accept({ ...job, phase: target, updatedAt: now });
    }
    case 'COMPLETE':
      if (endsCancelled) return done(cancelJob(job, CANCELLED_AFTER_START, ctx));
      return done(completeJob(job, command.answer, ctx));
    case 'FAIL':
      if (endsCancelled) return done(cancelJob(job, CANCELLED_AFTER_START, ctx));
      return done(failJob(job, command.error, ctx, command.code));
    case 'TIME_OUT':
      return done(failJob(job, timeoutMessage(command.timeoutMs), ctx, JobErrorCode.TIMEOUT));
    case 'CANCEL': {
      if (target === JobPhase.CANCELLED) {
        // A waiting or answered job has no run in progress: it ends at once, like a queued one.
        const notice = job.phase === JobPhase.QUEUED ? CANCELLED_BEFORE_START : CANCELLED_AFTER_START;
        return done(cancelJob(job, command.reason ?? notice, ctx, command.code));
      }
      // An interrupt's reason waits in `error`, and who asked in `errorCode`, until the run
      // confirms it stopped (see cancelJob).
      return accept({
        ...job,
        phase: target,
        error: command.reason ?? job.error,
        errorCode: command.code ?? JobErrorCode.CANCELLED_BY_PERSON,
        updatedAt: now,
      });
    }
    case 'CANCEL_CONFIRMED':
      return done(cancelJob(job, CANCELLED_AFTER_START, ctx));
  }
}
