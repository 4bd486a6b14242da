import type { Logger } from '@agent-teams/core';
import { acceptedRequestId, REQUEST_ID_HEADER } from '../server/request-ids.js';

/**
 * The logger of one HTTP request's lines: each carries its `requestId`, the {@link REQUEST_ID_HEADER}
 * that `withRequestIds` wrote into the request. `headers` are the request's.
 *
 * @remarks Log fields are passed, not carried by an async context: Node 20's `AsyncLocalStorage`
 * runs promise hooks on every promise of the process once it is used (decision 0236). The header is
 * read only when a line is written, which most requests never do, and only a plain id of 1–64
 * characters is written: a request that did not come through `withRequestIds` (Yoga mounted on a
 * host's own server, `yoga.fetch`) carries its caller's header as it came, so anything else is left out.
 */
export function requestLogger(logger: Logger, headers: { get(name: string): string | null }): Logger {
  return new RequestLogger(logger, headers);
}

class RequestLogger implements Logger {
  readonly #logger: Logger;
  readonly #headers: { get(name: string): string | null };

  constructor(logger: Logger, headers: { get(name: string): string | null }) {
    this.#logger = logger;
    this.#headers = headers;
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.#logger.info(message, this.#fields(fields));
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.#logger.warn(message, this.#fields(fields));
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.#logger.error(message, this.#fields(fields));
  }

  #fields(own: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const requestId = acceptedRequestId(this.#headers.get(REQUEST_ID_HEADER) ?? undefined);
    return requestId === null ? own : { requestId, ...own };
  }
}
