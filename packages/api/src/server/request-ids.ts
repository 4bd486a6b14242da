import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';

/**
 * The header that carries a request's id: {@link withRequestIds} sets it on every HTTP request
 * before anything else reads it, to the caller's plain id or a new UUID.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The longest caller-given `x-request-id` kept (it goes into every log line of the request). */
export const MAX_REQUEST_ID_CHARS = 64;

const PLAIN_ID = /^[A-Za-z0-9._:-]+$/;

/**
 * The caller's `x-request-id` when it is 1 to {@link MAX_REQUEST_ID_CHARS} plain ASCII characters
 * (letters, digits, `.`, `_`, `:`, `-`), else null: anything else could forge or break log lines.
 */
export function acceptedRequestId(header: string | readonly string[] | null | undefined): string | null {
  if (typeof header !== 'string' || header.length > MAX_REQUEST_ID_CHARS) return null;
  return PLAIN_ID.test(header) ? header : null;
}

/**
 * Gives every HTTP request an id: the caller's `x-request-id` when it is plain, else a new UUID.
 * It is echoed in the `x-request-id` response header and written back into the request's own
 * header, which is where the handlers read it (`requestLogger` in `observability/log-fields.ts`):
 * their log lines carry it as `requestId`, so an operator can follow one request through the logs.
 */
export function withRequestIds(handler: RequestListener): RequestListener {
  return (request, response) => {
    const requestId = acceptedRequestId(request.headers[REQUEST_ID_HEADER]) ?? randomUUID();
    response.setHeader(REQUEST_ID_HEADER, requestId);
    // Replaced, not added beside: a refused caller id (too long, not plain) must never reach a log line.
    request.headers[REQUEST_ID_HEADER] = requestId;
    handler(request, response);
  };
}
