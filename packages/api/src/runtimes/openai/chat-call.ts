import { JobErrorCode } from '@agent-teams/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { ChunkAccumulator, type ModelAnswer, type ProgressSink, readUsage } from './chunk-accumulator.js';
import { chatRequestBody } from './request-body.js';
import { readSseData, SSE_END_LINGER_MS, type SseEnd } from './sse-reader.js';

/**
 * Why a model call gave up: `access` (401/403: the key is missing, wrong or revoked), `failed`
 * (the job cannot get an answer: a refused request, a malformed or cut stream, retries exhausted
 * within the deadline) or `aborted` (the run was cancelled).
 */
export class ModelCallError extends Error {
  /** The job's failure code when it is not a plain runtime error (the provider kept failing). */
  readonly code: JobErrorCode | undefined;
  constructor(
    readonly kind: 'access' | 'failed' | 'aborted',
    message: string,
    options?: { cause?: unknown; code?: JobErrorCode },
  ) {
    super(message, options);
    this.name = 'ModelCallError';
    this.code = options?.code;
  }
}

/** Everything one model call needs. */
export interface ModelCall {
  readonly client: OpenAI;
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
 * message that says so. The client's own retries are off (`maxRetries: 0`), so this is the one
 * retry policy, bounded by the deadline.
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
    if (call.signal.aborted) throw new ModelCallError('aborted', 'The run was cancelled.');
    const remaining = call.deadlineMs - call.nowMs();
    if (remaining <= 0 && failing !== null) {
      // The backoff wait ran past the deadline (a late timer on a busy machine): say why we retried.
      throw gaveUp(failing.message, attempt - 1, failing.cause);
    }
    if (remaining <= 0) throw new ModelCallError('failed', 'The turn deadline passed before the model answered.');
    let response: ChatCompletion | Response;
    try {
      // What `chat.completions.create` sends, with the body's bytes from `chatRequestBody` (the SDK
      // sends bytes as they are); `Object.assign`, not a literal that begins with a spread (see
      // `UNADMITTED` in the core).
      const body = Object.assign(
        {},
        call.body,
        call.stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false },
      );
      const request = call.client.post<ChatCompletion>('/chat/completions', {
        body: chatRequestBody(body, call.keepMessages),
        headers: { 'content-type': 'application/json' },
        signal: call.signal,
        timeout: remaining,
        maxRetries: 0,
        stream: call.stream,
      });
      response = call.stream ? await request.asResponse() : await request;
    } catch (error) {
      const verdict = classifyRequestError(error, call.signal);
      if (verdict.retry === false) throw new ModelCallError(verdict.kind, verdict.message, { cause: error });
      const delay = retryDelay(error, attempt, call.retryBaseMs);
      if (call.nowMs() + delay >= call.deadlineMs) throw gaveUp(verdict.message, attempt, error);
      failing = { message: verdict.message, cause: error };
      if (!(await call.sleep(delay, call.signal))) throw new ModelCallError('aborted', 'The run was cancelled.');
      continue;
    }
    return call.stream ? readStream(response as Response, call) : readCompletion(response as ChatCompletion, call);
  }
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

async function readStream(response: Response, call: ModelCall): Promise<ModelAnswer> {
  const accumulator = new ChunkAccumulator(call.idPrefix, call.progress);
  if (response.body === null) throw new ModelCallError('failed', 'The model provider answered a stream with no body.');
  try {
    // Leaving at `[DONE]` does not cancel the body: the reader reads its end in the background, so
    // the connection stays open for the next call instead of being closed by a cancel.
    for await (const data of readSseData(response.body, call.signal, STREAM_END)) {
      if (data === STREAM_END.data) break;
      let chunk: { error?: { message?: string } } & Parameters<ChunkAccumulator['push']>[0];
      try {
        chunk = JSON.parse(data);
      } catch (error) {
        throw new ModelCallError('failed', `The model provider sent a malformed stream chunk (${describe(error)}).`, {
          cause: error,
        });
      }
      if (chunk?.error) {
        throw new ModelCallError(
          'failed',
          `The model provider reported an error in the stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`,
        );
      }
      accumulator.push(chunk);
    }
  } catch (error) {
    if (call.signal.aborted) throw new ModelCallError('aborted', 'The run was cancelled.');
    if (error instanceof ModelCallError) throw error;
    throw new ModelCallError('failed', `The model provider's stream broke off: ${describe(error)}`, { cause: error });
  }
  if (call.signal.aborted) throw new ModelCallError('aborted', 'The run was cancelled.');
  if (!accumulator.finished) {
    throw new ModelCallError(
      'failed',
      'The model provider ended the stream before the answer was complete (cut stream).',
    );
  }
  return accumulator.answer();
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
    call.progress.tool(tool.function.name);
    return [
      {
        id: tool.id || `${call.idPrefix}_${index}`,
        name: tool.function.name,
        arguments: tool.function.arguments ?? '',
      },
    ];
  });
  return { content, toolCalls, finishReason: choice.finish_reason ?? 'unknown', usage: readUsage(completion.usage) };
}

type Verdict = { retry: true; message: string } | { retry: false; kind: ModelCallError['kind']; message: string };

/** The one table of provider failures: which are retried, which stop the team, which fail the job. */
function classifyRequestError(error: unknown, signal: AbortSignal): Verdict {
  if (signal.aborted || error instanceof OpenAI.APIUserAbortError) {
    return { retry: false, kind: 'aborted', message: 'The run was cancelled.' };
  }
  if (error instanceof OpenAI.APIConnectionError && isRedirect(error)) {
    return {
      retry: false,
      kind: 'failed',
      message:
        "The model provider answered with a redirect (HTTP 301, 302, 303, 307 or 308), which is not followed: set the agent's baseUrl to the provider's final address.",
    };
  }
  if (error instanceof OpenAI.APIConnectionError)
    return { retry: true, message: `connection failed: ${error.message}` };
  if (error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    if (status === 401 || status === 403) {
      return { retry: false, kind: 'access', message: `The model provider refused the API key (${status}).` };
    }
    if (status === 429 || status >= 500) return { retry: true, message: `HTTP ${status}` };
    return {
      retry: false,
      kind: 'failed',
      message: `The model provider refused the request (HTTP ${status}): ${error.message}`,
    };
  }
  if (error instanceof SyntaxError) {
    return {
      retry: false,
      kind: 'failed',
      message: `The model provider sent a malformed response (${error.message}).`,
    };
  }
  return { retry: false, kind: 'failed', message: `The model call failed: ${describe(error)}` };
}

/** The provider's `retry-after-ms` / `retry-after`, else exponential backoff with jitter. */
function retryDelay(error: unknown, attempt: number, baseMs: number): number {
  const headers = error instanceof OpenAI.APIError ? error.headers : undefined;
  const afterMs = Number(headers?.get?.('retry-after-ms'));
  if (Number.isFinite(afterMs) && afterMs >= 0 && headers?.get?.('retry-after-ms') != null) return afterMs;
  const after = headers?.get?.('retry-after');
  if (after != null && after !== '' && Number.isFinite(Number(after))) return Number(after) * 1_000;
  const exponential = Math.min(baseMs * 2 ** (attempt - 1), baseMs * 32);
  return Math.round(exponential * (0.5 + Math.random() / 2));
}

/** What fetch says when it refuses a redirect (`SEND_AS_IS` in `model-clients.ts`). */
const REFUSED_REDIRECT = 'unexpected redirect';

/**
 * Fetch's refusal of a redirect somewhere in the causes: undici's is an `Error` with that
 * message, msw's interceptor (tests) gives the message itself as the cause.
 */
function isRedirect(error: Error): boolean {
  // A few links at most (the SDK's error, fetch's TypeError, undici's reason); bounded, as a chain can loop.
  let cause: unknown = error;
  for (let depth = 0; depth < 8; depth += 1) {
    if (cause === REFUSED_REDIRECT || (cause instanceof Error && cause.message === REFUSED_REDIRECT)) return true;
    if (!(cause instanceof Error)) return false;
    cause = cause.cause;
  }
  return false;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
