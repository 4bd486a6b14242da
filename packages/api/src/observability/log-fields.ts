import type { Logger } from '@agent-teams/core';

/**
 * The header that carries a request's id: `withRequestIds` (`server/request-ids.ts`) sets it on
 * every HTTP request before anything else reads it, to the caller's plain id or a new UUID.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Fields a logger adds to each of its lines. */
export type LogFields = Readonly<Record<string, string>>;

/**
 * A logger that adds `fields` to every line it writes; a line's own fields win over them.
 *
 * @remarks Log fields are passed, not carried by an async context: Node 20's `AsyncLocalStorage`
 * runs promise hooks on every promise of the process once it is used (decision 0236).
 */
export function withFields(logger: Logger, fields: LogFields): Logger {
  const merged = (own: Record<string, unknown> | undefined) => (own === undefined ? fields : { ...fields, ...own });
  return {
    info: (message, own) => logger.info(message, merged(own)),
    warn: (message, own) => logger.warn(message, merged(own)),
    error: (message, own) => logger.error(message, merged(own)),
  };
}

/**
 * The logger of one HTTP request's lines: each carries its `requestId` (the {@link REQUEST_ID_HEADER}
 * `withRequestIds` set; none when the request did not come through it, as `yoga.fetch` in tests).
 *
 * @remarks One object per request and nothing else: the header is read only when a line is written,
 * which most requests never do.
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
    const requestId = this.#headers.get(REQUEST_ID_HEADER);
    return requestId === null ? own : { requestId, ...own };
  }
}
