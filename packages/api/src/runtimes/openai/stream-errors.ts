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
 * An `error` event as a stream's first event, before any chunk: some providers send their 200 and
 * the stream's headers before the model has taken the call, and then refuse it in the stream
 * (overloaded, rate limited) where they would otherwise have answered 429 or 503.
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
 * A stream's first-event error under the status table's policy: retried (within the turn deadline,
 * with the same backoff as a 429 or 5xx) when its `type`, `code` or `status` names a rate limit or
 * a busy or failing server (a name from {@link TRANSIENT_STREAM_ERRORS}, or a number that is 429 or
 * 5xx), else the call fails with the provider's message.
 */
export function classifyStreamError(error: ProviderStreamError): Verdict {
  if (transient(error.error)) return { retry: true, message: `error event: ${error.message}` };
  return {
    retry: false,
    kind: 'failed',
    message: `The model provider reported an error in the stream: ${error.message}`,
  };
}

function transient(error: unknown): boolean {
  if (typeof error === 'string') return TRANSIENT_STREAM_ERRORS.has(error.toLowerCase());
  const values = fields(error);
  if (values === null) return false;
  return [values.code, values.type, values.status].some((value) => {
    const status = typeof value === 'number' ? value : typeof value === 'string' && /^\d{3}$/.test(value) ? +value : 0;
    if (status !== 0) return status === 429 || (status >= 500 && status <= 599);
    return typeof value === 'string' && TRANSIENT_STREAM_ERRORS.has(value.toLowerCase());
  });
}

function fields(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
