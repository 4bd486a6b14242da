import type { JobErrorCode } from '@agent-teams/core';
import type { TokenUsage } from './provider-usage.js';

/**
 * What an attempt that ended without an answer had reached at the provider, so its spend can be
 * recorded (`call-usage.ts`): the provider may have billed its prompt and whatever it answered.
 */
export interface CutShortCall {
  /** UTF-8 bytes of answer text and tool-call arguments received before the attempt ended. */
  readonly outputBytes: number;
  /** The provider's own report, when it sent one before the attempt ended. */
  readonly usage: TokenUsage | null;
}

/**
 * Why a model call gave up: `access` (401/403: the key is missing, wrong or revoked), `failed`
 * (the job cannot get an answer: a refused request, a malformed or cut stream, retries exhausted
 * within the deadline) or `aborted` (the run was cancelled).
 */
export class ModelCallError extends Error {
  /** The job's failure code when it is not a plain runtime error (the provider kept failing, the deadline passed). */
  readonly code: JobErrorCode | undefined;
  /**
   * What the call had reached at the provider; null when nothing of it is billed. For `aborted`
   * the turn records it (`cancelledCall`); for `failed` it was already handed to `ModelCall.spent`
   * before the error was thrown, and is kept here only to say what happened.
   */
  readonly cutShort: CutShortCall | null;
  constructor(
    readonly kind: 'access' | 'failed' | 'aborted',
    message: string,
    options?: { cause?: unknown; code?: JobErrorCode; cutShort?: CutShortCall | null },
  ) {
    super(message, options);
    this.name = 'ModelCallError';
    this.code = options?.code;
    this.cutShort = options?.cutShort ?? null;
  }
}

/** The cancellation of a call; `cutShort` when its request had been sent (its spend is recorded). */
export function cancelled(cutShort: CutShortCall | null = null): ModelCallError {
  return new ModelCallError('aborted', 'The run was cancelled.', { cutShort });
}

/**
 * The failure of an answer that had begun (a 200 answer whose body broke off, was malformed or
 * ended early): the provider has billed its prompt and what it sent, so `cutShort` is always set.
 */
export function answerFailed(message: string, cutShort: CutShortCall, cause?: unknown): ModelCallError {
  return new ModelCallError('failed', message, { cutShort, ...(cause === undefined ? {} : { cause }) });
}
