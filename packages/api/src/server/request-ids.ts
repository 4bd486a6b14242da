import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { withLogFields } from '../async/log-context.js';

/** A caller's `x-request-id` is kept only when it is this short and plain (it goes into logs). */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every HTTP request an id: the caller's `x-request-id` when it is plain, else a new UUID.
 * It is echoed in the `x-request-id` response header and carried by every log line written while
 * the request is handled (`requestId`), so an operator can follow one request through the logs.
 */
export function withRequestIds(handler: RequestListener): RequestListener {
  return (request, response) => {
    const given = request.headers['x-request-id'];
    const requestId = typeof given === 'string' && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
    response.setHeader('x-request-id', requestId);
    withLogFields({ requestId }, () => handler(request, response));
  };
}
