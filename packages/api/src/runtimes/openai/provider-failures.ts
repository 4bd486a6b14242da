import type { IncomingHttpHeaders } from 'node:http';
import type { CutShortCall, ModelCallError } from './model-call-error.js';
import {
  ProviderAbortError,
  ProviderConnectionError,
  type ProviderResponse,
  ProviderTimeoutError,
  readBodyText,
} from './provider-http.js';
import { readUsage, type TokenUsage } from './provider-usage.js';
import { classifyStreamError, ProviderStreamError } from './stream-errors.js';

/** Whether a failed attempt is tried again within the deadline, and what the job is told if not. */
export type Verdict =
  | { retry: true; message: string }
  | { retry: false; kind: ModelCallError['kind']; message: string };

/** Redirects `fetch` refused before; `node:http` never follows any, and these fail the call. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The most bytes of an error answer read for its message: a provider's error JSON is a few
 * hundred bytes, and what a misbehaving one sends beyond this is not read.
 */
export const PROVIDER_ERROR_BODY_MAX_BYTES = 64 * 1024;

/**
 * A provider answered with a status other than 2xx.
 *
 * @remarks `usage` is the error body's own `usage` report, when it has one: the only spend of a
 * refused request that is recorded (`attemptSpend`).
 */
export class ProviderStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    message: string,
    readonly usage: TokenUsage | null = null,
  ) {
    super(message);
    this.name = 'ProviderStatusError';
  }
}

/** The status error of a non-2xx answer, its message read from the body as the `openai` client wrote it. */
export async function statusError(response: ProviderResponse, signal: AbortSignal): Promise<ProviderStatusError> {
  if (REDIRECTS.has(response.status)) {
    // Nothing in a redirect's body is wanted, and a body that never ends must not hold the socket.
    response.body.destroy();
    return new ProviderStatusError(response.status, response.headers, `${response.status} redirect`);
  }
  let text: string;
  try {
    text = await readBodyText(response.body, signal, PROVIDER_ERROR_BODY_MAX_BYTES);
  } catch (error) {
    // The status decides, not a body that broke off (the `openai` client took the read's error
    // message as the body): a cut 401 is still a refused key, a cut 400 still a refused request.
    if (!(error instanceof ProviderConnectionError)) throw error;
    text = error.message;
  }
  return new ProviderStatusError(
    response.status,
    response.headers,
    statusMessage(response.status, text),
    bodyUsage(text),
  );
}

/** The `usage` report of an error body, null when the body is no JSON object or has none. */
function bodyUsage(text: string): TokenUsage | null {
  try {
    return readUsage((JSON.parse(text) as { usage?: unknown } | null)?.usage);
  } catch {
    return null;
  }
}

/**
 * `<status> <message>` as the `openai` client's `APIError` wrote it: the JSON body's
 * `error.message` (or its `error` as JSON), else the body's text, else "status code (no body)".
 */
export function statusMessage(status: number, text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // Not JSON, or JSON that is falsy (`null`, `0`, `false`, `""`): the body's text, as the client.
  if (!json) return text === '' ? `${status} status code (no body)` : `${status} ${text}`;
  const error = (json as { error?: { message?: unknown } } | null)?.error;
  const message = error?.message
    ? typeof error.message === 'string'
      ? error.message
      : JSON.stringify(error.message)
    : error
      ? JSON.stringify(error)
      : '';
  return message === '' ? `${status} status code (no body)` : `${status} ${message}`;
}

/** The one table of provider answers that are not 2xx: which are retried, which stop the team, which fail the job. */
export function classifyStatus(error: ProviderStatusError): Verdict {
  const { status } = error;
  if (REDIRECTS.has(status)) {
    return {
      retry: false,
      kind: 'failed',
      message:
        "The model provider answered with a redirect (HTTP 301, 302, 303, 307 or 308), which is not followed: set the agent's baseUrl to the provider's final address.",
    };
  }
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

/**
 * The one table of failures before or while reading an answer: connection failures are retried,
 * and an error event as a stream's first event is judged as the status it stands for.
 */
export function classifyRequestError(error: unknown, signal: AbortSignal): Verdict {
  if (signal.aborted || error instanceof ProviderAbortError) {
    return { retry: false, kind: 'aborted', message: 'The run was cancelled.' };
  }
  if (error instanceof ProviderStreamError) return classifyStreamError(error);
  if (error instanceof ProviderConnectionError) return { retry: true, message: `connection failed: ${error.message}` };
  if (error instanceof SyntaxError) {
    return {
      retry: false,
      kind: 'failed',
      message: `The model provider sent a malformed response (${error.message}).`,
    };
  }
  return { retry: false, kind: 'failed', message: `The model call failed: ${describe(error)}` };
}

/** An attempt counted at its prompt estimate: no output came, and the provider sent no report. */
const PROMPT_ONLY: CutShortCall = { outputBytes: 0, usage: null };

/**
 * The spend of an attempt that got no answer and was not cancelled, null when it is not billed: a
 * refusal (an error status, or an error event as a stream's first event) counts only the
 * provider's own usage report of it; a request whose answer had not begun when the time it had ran
 * out (`ProviderTimeoutError`: the turn deadline) counts its prompt estimate, as a cancel at that
 * moment does; a connection that failed counts nothing.
 *
 * @remarks Why a refusal without a report counts nothing, when a cancel after the request went out
 * counts its prompt: a refusal is the provider's word that it did not take the call (OpenAI and
 * its peers do not bill a 429, a 5xx or a 4xx), and it is retried: counting each refused attempt
 * at the prompt estimate would charge a budget for every retry of an outage that billed nothing,
 * and fail jobs as over budget when they had spent nothing. A connection that failed before the
 * answer began is not counted for the same reason: it is retried, and most such failures (refused,
 * reset, TLS) happen before the provider has read the request. A timed-out request is none of
 * these: it went out and the provider held it without refusing until the deadline, so it may well
 * have billed the prompt (a model slow to its first token is working on it); it is never retried
 * (the deadline has passed); and the turn's deadline also cancels the run (the scheduler's
 * `TIME_OUT`), which counts the prompt: which of the two comes first must not decide the bill.
 */
export function attemptSpend(failure: unknown): CutShortCall | null {
  if (failure instanceof ProviderTimeoutError) return PROMPT_ONLY;
  if (!(failure instanceof ProviderStatusError || failure instanceof ProviderStreamError)) return null;
  return failure.usage === null ? null : { outputBytes: 0, usage: failure.usage };
}

/** One header's value (Node joins a repeated `retry-after-ms` into one text, which then reads as no number). */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The provider's `retry-after-ms` / `retry-after` (on an error status, or on the 200 answer whose
 * stream began with an error event), else exponential backoff with jitter.
 */
export function retryDelay(error: unknown, attempt: number, baseMs: number): number {
  const headers = error instanceof ProviderStatusError || error instanceof ProviderStreamError ? error.headers : {};
  const afterMs = header(headers, 'retry-after-ms');
  if (afterMs !== undefined && afterMs !== '' && Number.isFinite(Number(afterMs)) && Number(afterMs) >= 0) {
    return Number(afterMs);
  }
  const after = header(headers, 'retry-after');
  if (after !== undefined && after !== '' && Number.isFinite(Number(after))) return Number(after) * 1_000;
  const exponential = Math.min(baseMs * 2 ** (attempt - 1), baseMs * 32);
  return Math.round(exponential * (0.5 + Math.random() / 2));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
