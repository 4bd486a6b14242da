import type { IncomingHttpHeaders } from 'node:http';
import type { Verdict } from './provider-failures.js';
import type { TokenUsage } from './provider-usage.js';

/**
 * The `type`s and `code`s of a stream's error event that say what a 429 or a 5xx says: the
 * provider is busy or failed, and the same request may be answered later. OpenAI's
 * (`rate_limit_exceeded`, `server_error`), Anthropic's (`rate_limit_error`, `overloaded_error`,
 * `api_error`) and the names OpenAI-compatible servers use for the same. Anything else (an invalid
 * request, `insufficient_quota`, a content filter) is the provider's last word on the call.
 */
const TRANSIENT_STREAM_ERRORS: ReadonlySet<string> = new Set([
  'rate_limit_exceeded',
  'rate_limit_error',
  'too_many_requests',
  'server_error',
  'internal_server_error',
  'internal_error',
  'api_error',
  'overloaded',
  'overloaded_error',
  'server_overloaded',
  'service_unavailable',
]);

/**
 * The `type`s and `code`s of a stream's error event that say what a 401 or a 403 says: the key is
 * missing, wrong or revoked, or not allowed the call. OpenAI's (`invalid_api_key`), Anthropic's
 * (`authentication_error`, `permission_error`) and the names OpenAI-compatible servers and
 * gateways use for the same (Google's statuses `UNAUTHENTICATED`, `PERMISSION_DENIED`).
 */
const ACCESS_STREAM_ERRORS: ReadonlySet<string> = new Set([
  'invalid_api_key',
  'authentication_error',
  'invalid_authentication',
  'unauthenticated',
  'unauthorized',
  'permission_error',
  'permission_denied',
  'forbidden',
]);

/**
 * An `error` event as a stream's first event, before any chunk: some providers send their 200 and
 * the stream's headers before the model has taken the call, and then refuse it in the stream
 * (overloaded, rate limited, a refused key) where they would otherwise have answered 429, 503 or 401.
 *
 * @remarks Judged as that status would be ({@link classifyStreamError}), and like a refused request
 * not counted as spend unless the event carries the provider's own `usage` report. An error event
 * after a chunk ends an answer that began: that one is never retried, and its spend is counted.
 */
export class ProviderStreamError extends Error {
  constructor(
    /** The event's `error` value, as the provider sent it. */
    readonly error: unknown,
    /** The event's own `usage` report, if it carried one. */
    readonly usage: TokenUsage | null,
    /** The headers of the 200 answer the stream came in (a `retry-after` there is waited as a 429's). */
    readonly headers: IncomingHttpHeaders,
  ) {
    super(streamErrorText(error));
    this.name = 'ProviderStreamError';
  }
}

/** What a stream's error event says: its `message`, else the error as JSON (as it always read). */
export function streamErrorText(error: unknown): string {
  const message = fields(error)?.message;
  return typeof message === 'string' ? message : JSON.stringify(error);
}

/**
 * A stream's first-event error under the status table's policy (`classifyStatus`), in its order:
 * lost access (the team is disconnected, as on a 401 or 403) when its `type`, `code` or `status`
 * names a refused key (a name from {@link ACCESS_STREAM_ERRORS}, or 401 or 403); retried (within
 * the turn deadline, with the same backoff as a 429 or 5xx, and the answer's `retry-after` waited
 * as a 429's is) when one names a rate limit or a busy or failing server (a name from
 * {@link TRANSIENT_STREAM_ERRORS}, or 429 or 5xx); else the call fails with the provider's message.
 *
 * @remarks Lost access is said without the provider's message, as a refused status is: a
 * provider's words about a wrong key may quote part of it (OpenAI's do), and the reason is shown
 * on the team.
 */
export function classifyStreamError(error: ProviderStreamError): Verdict {
  const names = namesOf(error.error);
  const access = names.find((name) => name === '401' || name === '403' || ACCESS_STREAM_ERRORS.has(name));
  if (access !== undefined) {
    return {
      retry: false,
      kind: 'access',
      message: `The model provider refused the API key (${access} in the stream).`,
    };
  }
  if (names.some(transient)) return { retry: true, message: `error event: ${error.message}` };
  return {
    retry: false,
    kind: 'failed',
    message: `The model provider reported an error in the stream: ${error.message}`,
  };
}

/**
 * What an error event calls itself, in lower case: the event's text when it is one, else its
 * `code`, `type` and `status` that are text, or whole numbers of three digits (as text).
 */
function namesOf(error: unknown): string[] {
  if (typeof error === 'string') return [error.toLowerCase()];
  const values = fields(error);
  if (values === null) return [];
  return [values.code, values.type, values.status].flatMap((value) => {
    if (typeof value === 'string') return [value.toLowerCase()];
    const status = typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 999;
    return status ? [String(value)] : [];
  });
}

function transient(name: string): boolean {
  if (!/^\d{3}$/.test(name)) return TRANSIENT_STREAM_ERRORS.has(name);
  const status = Number(name);
  return status === 429 || (status >= 500 && status <= 599);
}

function fields(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
