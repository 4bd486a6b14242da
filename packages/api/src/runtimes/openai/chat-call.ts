import { JobErrorCode } from '@agent-teams/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { readAnswer } from './answer-readers.js';
import type { ModelAnswer, ProgressSink } from './chunk-accumulator.js';
import { type CutShortCall, cancelled, ModelCallError } from './model-call-error.js';
import type { ModelEndpoint } from './model-clients.js';
import {
  attemptSpend,
  classifyRequestError,
  classifyStatus,
  ProviderStatusError,
  retryDelay,
  statusError,
  type Verdict,
} from './provider-failures.js';
import { ProviderTimeoutError } from './provider-http.js';
import { chatRequestBody } from './request-body.js';

export { type CutShortCall, ModelCallError } from './model-call-error.js';

/** Everything one model call needs. */
export interface ModelCall {
  /** Where the call goes (`model-clients.ts`). */
  readonly endpoint: ModelEndpoint;
  /** The request without `stream` (added here). */
  readonly body: Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;
  readonly stream: boolean;
  /** The body's messages are the same objects from call to call: keep their bytes (`request-body.ts`). */
  readonly keepMessages: boolean;
  readonly signal: AbortSignal;
  /** Epoch ms after which no attempt starts and no retry waits. */
  readonly deadlineMs: number;
  readonly nowMs: () => number;
  /** First backoff delay; doubled per attempt (with jitter), capped at 32× base. */
  readonly retryBaseMs: number;
  /** Waits `ms`; resolves false when `signal` aborted the wait. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<boolean>;
  readonly progress: ProgressSink;
  /** Prefix of ids given to tool calls a provider sent without one. */
  readonly idPrefix: string;
  /**
   * Records the spend of one attempt that reached the provider and ended without an answer (an
   * answer that began and failed, a refusal the provider reported usage for, or a request whose
   * answer had not begun by the turn deadline: `attemptSpend`), once per attempt,
   * before the call retries or gives up. A cancelled attempt's spend is not handed here: it rides
   * on the error (`ModelCallError.cutShort`). Absent, such spend is not recorded (HTTP-only tests).
   */
  readonly spent?: (cut: CutShortCall) => Promise<void>;
  /**
   * The turn the call belongs to, written on its `chat` span as the turn's `invoke_agent` span
   * carries it (`agent_teams.team.id`, `agent_teams.job.id`, `gen_ai.conversation.id`), so a failing
   * call is traced to its job, also after a takeover, where this server has no `invoke_agent` span.
   */
  readonly turn?: { readonly teamId: string; readonly jobId: string; readonly conversationId: string };
  /** Told before each wait to try again (the turn logs it); absent, retries are silent (HTTP-only tests). */
  readonly retrying?: (retry: ModelRetry) => void;
  /** Asked before retrying an attempt whose spend was recorded; throws to give up (the budget). */
  readonly beforeRetry?: () => Promise<void>;
}

/** A failed attempt the call tries again after `delayMs`: its number and the provider's reason. */
export interface ModelRetry {
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
}

/** The attributes naming the turn of a `chat` span (none without {@link ModelCall.turn}). */
function turnAttributes(turn: ModelCall['turn']): Record<string, string> {
  return turn === undefined
    ? {}
    : {
        'gen_ai.conversation.id': turn.conversationId,
        'agent_teams.team.id': turn.teamId,
        'agent_teams.job.id': turn.jobId,
      };
}

/**
 * Calls the model once, retrying 429, 5xx, connection failures and a stream whose first event is
 * a transient error (`stream-errors.ts`) with exponential backoff (or the provider's
 * `retry-after`) for as long as the turn deadline allows.
 *
 * @remarks Only the request is retried, never a stream that already delivered deltas: a stream
 * that breaks off, ends without a finish reason or carries malformed JSON or an error event fails
 * the call with a message that says so. This is the one retry policy, bounded by the deadline.
 * Every attempt the provider billed is handed to `call.spent` once (see {@link ModelCall.spent}).
 */
export async function callModel(call: ModelCall): Promise<ModelAnswer> {
  // One `chat` span per model call, retries included (OpenTelemetry GenAI conventions); a no-op
  // unless the server was started with an exporter (observability/tracing.ts).
  const model = String(call.body.model);
  const span = trace.getTracer('agent-teams').startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': model,
      ...turnAttributes(call.turn),
    },
  });
  try {
    const answer = await callModelWithRetries(call);
    span.setAttributes({
      'gen_ai.response.finish_reasons': [answer.finishReason],
      ...(answer.usage
        ? {
            'gen_ai.usage.input_tokens': answer.usage.inputTokens,
            // Part of the input tokens, as the GenAI conventions count it.
            'gen_ai.usage.cache_read.input_tokens': answer.usage.cachedInputTokens,
            'gen_ai.usage.output_tokens': answer.usage.outputTokens,
          }
        : {}),
    });
    return answer;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

async function callModelWithRetries(call: ModelCall): Promise<ModelAnswer> {
  let failing: { message: string; cause: unknown } | null = null;
  for (let attempt = 1; ; attempt += 1) {
    if (call.signal.aborted) throw cancelled();
    const remaining = call.deadlineMs - call.nowMs();
    if (remaining <= 0 && failing !== null) {
      // The backoff wait ran past the deadline (a late timer on a busy machine): say why we retried.
      throw gaveUp(failing.message, attempt - 1, failing.cause);
    }
    if (remaining <= 0) throw deadlinePassed('The turn deadline passed before the model answered.');
    let verdict: Verdict;
    let failure: unknown;
    // From the moment the request goes out until the provider refuses it: a cancel then is counted.
    let sent = false;
    try {
      // What `chat.completions.create` sends, as the bytes `chatRequestBody` writes; `Object.assign`,
      // not a literal that begins with a spread (see `UNADMITTED` in the core).
      const body = Object.assign(
        {},
        call.body,
        call.stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false },
      );
      const { endpoint } = call;
      const bytes = chatRequestBody(body, call.keepMessages);
      sent = !call.signal.aborted;
      const response = await endpoint.http.post(endpoint.url, endpoint.headers, bytes, call.signal, remaining);
      if (response.status >= 200 && response.status < 300) return await readAnswer(response, call);
      // An error status is no answer: providers do not bill a refused request.
      sent = false;
      failure = await statusError(response, call.signal);
      verdict = classifyStatus(failure as ProviderStatusError);
    } catch (error) {
      if (error instanceof ModelCallError) {
        // An answer that began and then failed is final (a call that delivered deltas is never sent
        // again) and billed: its spend is recorded before the call gives up.
        if (error.kind === 'failed' && error.cutShort !== null) await call.spent?.(error.cutShort);
        throw error;
      }
      failure = error;
      verdict = classifyRequestError(error, call.signal);
    }
    if (verdict.retry === false && verdict.kind === 'aborted') {
      // Cancelled before the answer began (or, not streamed, before its body was read): nothing of
      // the output is known, and the prompt may well have been billed already.
      throw cancelled(sent ? { outputBytes: 0, usage: null } : null);
    }
    // A refusal is counted only when the provider reported its usage, a request that timed out
    // waiting for its answer at its prompt (`attemptSpend` says why), once for each attempt.
    const spent = attemptSpend(failure);
    if (spent !== null) await call.spent?.(spent);
    if (verdict.retry === false) throw new ModelCallError(verdict.kind, verdict.message, { cause: failure });
    const delay = retryDelay(failure, attempt, call.retryBaseMs);
    if (call.nowMs() + delay >= call.deadlineMs) {
      // The request had the rest of the deadline and no answer began: the turn ran out of time
      // waiting for a slow provider (`TIMEOUT`), which had not failed (`PROVIDER_UNAVAILABLE`).
      if (failure instanceof ProviderTimeoutError) {
        throw deadlinePassed('The turn deadline passed while waiting for the model provider to begin its answer.');
      }
      throw gaveUp(verdict.message, attempt, failure);
    }
    // A billed refusal changed what the budget holds: the next attempt must still fit it.
    if (spent !== null) await call.beforeRetry?.();
    failing = { message: verdict.message, cause: failure };
    // A status's verdict says only `HTTP 429`: the provider's own words are in its error.
    const reason = failure instanceof ProviderStatusError ? failure.message : verdict.message;
    call.retrying?.({ attempt, delayMs: delay, reason });
    if (!(await call.sleep(delay, call.signal))) throw cancelled();
  }
}

/** The failure of a call the turn deadline ended, as a `TIMEOUT` like the scheduler's own. */
function deadlinePassed(message: string): ModelCallError {
  return new ModelCallError('failed', message, { code: JobErrorCode.TIMEOUT });
}

/** The failure of a call whose retries ran out of turn deadline. */
function gaveUp(reason: string, attempts: number, cause: unknown): ModelCallError {
  return new ModelCallError(
    'failed',
    `The model provider kept failing (${reason}); gave up after ${attempts} attempt(s) within the turn deadline.`,
    { cause, code: JobErrorCode.PROVIDER_UNAVAILABLE },
  );
}
