import { Limits } from '../limits/limits.js';
import { type Job, JobKind, JobPhase, type JobResult } from '../model/job.js';
import { truncateUtf8 } from '../text/text-measure.js';
import { boundAnswer } from './bound-answer.js';
import { isBroadcastRequest } from './broadcast.js';
import type { JobEffect, NewReceipt, TransitionContext } from './job-commands.js';
import { JobErrorCode } from './job-error-code.js';

/** Outcome text of a job cancelled while still QUEUED (nothing ran, so nothing is "kept"). */
export const CANCELLED_BEFORE_START = 'Cancelled before it started.';
/** Outcome text of a job cancelled after admission: its conversation still holds the partial work. */
export const CANCELLED_AFTER_START = 'Cancelled; the conversation and its checkpoints are kept.';

/** The failure text of a turn that passed its deadline. */
export function timeoutMessage(timeoutMs: number): string {
  return `Timed out after ${timeoutMs} ms; the run was cancelled.`;
}

/** The terminal phases a job can finish in. */
export type FinalPhase = typeof JobPhase.COMPLETED | typeof JobPhase.FAILED | typeof JobPhase.CANCELLED;

/** A finished job and the persistent effects of finishing it. */
export interface Finished {
  readonly job: Job;
  readonly effects: readonly JobEffect[];
}

/**
 * The receipt that carries a request's outcome back to the member who asked. Only a member's
 * request gets one (a person reads the result directly) and never a cancelled one: the asking
 * agent did not get an answer and must not be woken with a non-answer. A broadcast's requests get
 * none of their own: the store adds their one combined receipt when the last one finishes.
 */
function receiptFor(job: Job, phase: FinalPhase, result: JobResult, ctx: TransitionContext): NewReceipt | null {
  const { memberId, conversationId } = job.requester;
  if (phase === JobPhase.CANCELLED || job.kind !== JobKind.REQUEST) return null;
  // A broadcast's outcomes return together, in one BROADCAST_RECEIPT (see `broadcast.ts`).
  if (isBroadcastRequest(job)) return null;
  if (memberId === null || conversationId === null) return null;
  const text = JSON.stringify({ request_id: job.id, from_member: job.memberId, status: phase, result: result.text });
  return { id: ctx.ids.jobId(), memberId, conversationId, text };
}

/**
 * Moves a job to a terminal phase: stores the result and error, stamps `finishedAt`, clears what
 * it was waiting for, and returns the shared-record message (plus the receipt, when due) that the
 * store writes in the same transaction.
 */
export function finishJob(
  job: Job,
  phase: FinalPhase,
  result: JobResult,
  error: string | null,
  ctx: TransitionContext,
  errorCode: string | null = null,
): Finished {
  const next: Job = {
    ...job,
    phase,
    result,
    error,
    errorCode,
    pendingInput: null,
    pendingResponse: null,
    wait: null,
    finishedAt: ctx.now,
    updatedAt: ctx.now,
  };
  const effects: JobEffect[] = [
    {
      type: 'APPEND_RECORD',
      kind: phase,
      memberId: job.memberId,
      fromMemberId: job.memberId,
      text: result.text,
      truncated: result.truncated ?? false,
    },
  ];
  const receipt = receiptFor(job, phase, result, ctx);
  if (receipt !== null) effects.push({ type: 'CREATE_RECEIPT', receipt });
  return { job: next, effects };
}

/** Finishes a job COMPLETED with its bounded answer. */
export function completeJob(job: Job, answer: string, ctx: TransitionContext): Finished {
  return finishJob(job, JobPhase.COMPLETED, boundAnswer(answer), null, ctx);
}

/**
 * Finishes a job FAILED with its code (default `RUNTIME_ERROR`); the message is cut to the answer
 * budget (no notice: it is not an answer).
 */
export function failJob(
  job: Job,
  message: string,
  ctx: TransitionContext,
  code: JobErrorCode = JobErrorCode.RUNTIME_ERROR,
): Finished {
  const cut = truncateUtf8(message, Limits.answerBytes);
  return finishJob(job, JobPhase.FAILED, { text: cut.text, truncated: cut.truncated }, cut.text, ctx, code);
}

/**
 * Finishes a job CANCELLED with the text that says whether anything had run, or with the reason
 * an interrupt left in `error` while its run was stopping (cut to the answer budget); the code is
 * who asked, as the CANCEL command recorded it (default `CANCELLED_BY_PERSON`).
 */
export function cancelJob(job: Job, text: string, ctx: TransitionContext, code?: JobErrorCode): Finished {
  const cut = truncateUtf8(job.error ?? text, Limits.answerBytes);
  const errorCode = code ?? job.errorCode ?? JobErrorCode.CANCELLED_BY_PERSON;
  return finishJob(job, JobPhase.CANCELLED, { text: cut.text, truncated: cut.truncated }, cut.text, ctx, errorCode);
}
