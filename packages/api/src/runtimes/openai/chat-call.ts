import { JobErrorCode } from '@agent-teams/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ChatCompletion, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { ChunkAccumulator, type ModelAnswer, type ProgressSink, toolCallText } from './chunk-accumulator.js';
import type { ModelEndpoint } from './model-clients.js';
import {
  classifyRequestError,
  classifyStatus,
  type ProviderStatusError,
  retryDelay,
  statusError,
  type Verdict,
} from './provider-failures.js';
import {
  ProviderAbortError,
  ProviderConnectionError,
  type ProviderResponse,
  ProviderTimeoutError,
  readBodyText,
} from './provider-http.js';
import { readUsage, type TokenUsage } from './provider-usage.js';
import { chatRequestBody } from './request-body.js';
import { readSseEvents, SSE_END_LINGER_MS, type SseEnd, SseEventTooLargeError } from './sse-reader.js';

/**
 * What a cancelled call had reached when it stopped: its request was sent (and not refused), so
 * the provider may have billed its prompt and whatever it answered (`call-usage.ts` records it).
 */
export interface CutShortCall {
  /** UTF-8 bytes of answer text and tool-call arguments received before the abort. */
  readonly outputBytes: number;
  /** The provider's own report, when it sent one before the abort. */
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
  /** For `aborted`: what the call had reached at the provider; null when its request was never sent. */
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
function cancelled(cutShort: CutShortCall | null = null): ModelCallError {
  return new ModelCallError('aborted', 'The run was cancelled.', { cutShort });
}

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
}

/**
 * Calls the model once, retrying 429, 5xx and connection failures with exponential backoff (or
 * the provider's `retry-after`) for as long as the turn deadline allows.
 *
 * @remarks Only the request is retried, never a stream that already delivered deltas: a stream
 * that breaks off, ends without a finish reason or carries malformed JSON fails the call with a
 * message that says so. This is the one retry policy, bounded by the deadline.
 */
export async function callModel(call: ModelCall): Promise<ModelAnswer> {
  // One `chat` span per model call, retries included (OpenTelemetry GenAI conventions); a no-op
  // unless the server was started with an exporter (observability/tracing.ts).
  const model = String(call.body.model);
  const span = trace.getTracer('agent-teams').startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': model },
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
      if (response.status >= 200 && response.status < 300) {
        if (call.stream) return await readStream(response, call);
        return readCompletion(parseCompletion(await readAnswerText(response, call.signal)), call);
      }
      // An error status is no answer: providers do not bill a refused request.
      sent = false;
      failure = await statusError(response, call.signal);
      verdict = classifyStatus(failure as ProviderStatusError);
    } catch (error) {
      // The stream's and the answer's own failures are final: a call that delivered deltas is never sent again.
      if (error instanceof ModelCallError) throw error;
      failure = error;
      verdict = classifyRequestError(error, call.signal);
    }
    if (verdict.retry === false && verdict.kind === 'aborted') {
      // Cancelled before the answer began (or, not streamed, before its body was read): nothing of
      // the output is known, and the prompt may well have been billed already.
      throw cancelled(sent ? { outputBytes: 0, usage: null } : null);
    }
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
    failing = { message: verdict.message, cause: failure };
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

/** The last event of a chat completion stream. */
const STREAM_END: SseEnd = { data: '[DONE]', lingerMs: SSE_END_LINGER_MS };

async function readStream(response: ProviderResponse, call: ModelCall): Promise<ModelAnswer> {
  const accumulator = new ChunkAccumulator(call.idPrefix, call.progress);
  try {
    // Leaving at `[DONE]` does not destroy the body: its end is read in the background, so the
    // connection stays open for the next call instead of being closed.
    await readSseEvents(response.body, call.signal, STREAM_END, (data) => {
      let chunk: { error?: { message?: string } } & Parameters<ChunkAccumulator['push']>[0];
      try {
        chunk = JSON.parse(data);
      } catch (error) {
        throw new ModelCallError('failed', `The model provider sent a malformed stream chunk (${describe(error)}).`, {
          cause: error,
        });
      }
      // JSON that is not an object (`null`, a number, a list) is no chunk: said so, not left to
      // fail on its first property read.
      if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
        throw new ModelCallError('failed', 'The model provider sent a stream chunk that is not a JSON object.');
      }
      if (chunk.error) {
        throw new ModelCallError(
          'failed',
          `The model provider reported an error in the stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`,
        );
      }
      accumulator.push(chunk);
    });
  } catch (error) {
    // Cancelled mid-stream: the provider has billed the prompt and what it streamed so far.
    if (call.signal.aborted || error instanceof ProviderAbortError) throw cancelled(accumulator.soFar());
    if (error instanceof ModelCallError) throw error;
    if (error instanceof SseEventTooLargeError) {
      throw new ModelCallError('failed', `The model provider sent ${error.message} in its stream.`, { cause: error });
    }
    throw new ModelCallError('failed', `The model provider's stream broke off: ${describe(error)}`, { cause: error });
  }
  if (call.signal.aborted) throw cancelled(accumulator.soFar());
  if (!accumulator.finished) {
    throw new ModelCallError(
      'failed',
      'The model provider ended the stream before the answer was complete (cut stream).',
    );
  }
  return accumulator.answer();
}

/**
 * A non-streamed answer's body. One that breaks off fails the call without a retry, as a stream
 * that breaks off does: the provider has likely billed the answer already.
 */
async function readAnswerText(response: ProviderResponse, signal: AbortSignal): Promise<string> {
  try {
    return await readBodyText(response.body, signal);
  } catch (error) {
    if (!(error instanceof ProviderConnectionError)) throw error;
    throw new ModelCallError('failed', `The model provider's answer broke off: ${error.message}`, { cause: error });
  }
}

/** A non-streamed answer's JSON; a `SyntaxError` when it is not JSON (classified as malformed). */
function parseCompletion(text: string): ChatCompletion {
  return JSON.parse(text) as ChatCompletion;
}

function readCompletion(completion: ChatCompletion, call: ModelCall): ModelAnswer {
  const choice = completion?.choices?.[0];
  if (!choice || typeof choice !== 'object' || !choice.message) {
    throw new ModelCallError('failed', 'The model provider answered without a choice (malformed response).');
  }
  const content = choice.message.content ?? '';
  if (content !== '') call.progress.text(content);
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((tool, index) => {
    if (tool.type !== 'function') return [];
    const name = toolCallText(tool.function.name);
    call.progress.tool(name);
    return [
      {
        id: toolCallText(tool.id) || `${call.idPrefix}_${index}`,
        name,
        arguments: toolCallText(tool.function.arguments),
      },
    ];
  });
  return { content, toolCalls, finishReason: choice.finish_reason ?? 'unknown', usage: readUsage(completion.usage) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
