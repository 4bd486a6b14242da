import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';

/** The longest wait `setTimeout` can arm (2^31 − 1 ms); a longer deadline waits this long. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * How long an idle kept-alive connection is kept: undici's default, shorter than the idle timeout
 * of common front doors (nginx 75 s, load balancers 60 s), so a provider rarely closes a connection
 * just as a call reuses it. A provider's `Keep-Alive: timeout=` hint shortens it further.
 */
export const IDLE_SOCKET_MS = 4_000;

/** A provider's answer as it begins: its status and headers, the body still to be read. */
export interface ProviderResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: IncomingMessage;
}

/**
 * The request got no answer: the connection failed or broke off, or no answer began within the
 * time the call had. Retried within the turn deadline (`chat-call.ts`).
 */
export class ProviderConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderConnectionError';
  }
}

/**
 * No answer began within the time the call had. A model call gives its request what is left of
 * the turn deadline, so this one means the deadline passed, not that the provider failed.
 */
export class ProviderTimeoutError extends ProviderConnectionError {
  constructor() {
    super('Request timed out.');
  }
}

/**
 * An answer's body broke off (or was closed) before its end: `received` is the text of what came
 * of it, so a billed answer that broke off is counted as far as it came (`answer-readers.ts`).
 */
export class ProviderBodyError extends ProviderConnectionError {
  constructor(
    message: string,
    /** The body's bytes received before it broke off, as UTF-8 text (a cut character replaced). */
    readonly received: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderBodyError';
  }
}

/** The run was cancelled while the request or its body was in flight. */
export class ProviderAbortError extends Error {
  constructor() {
    super('The run was cancelled.');
    this.name = 'ProviderAbortError';
  }
}

/**
 * POSTs model calls over `node:http`/`node:https` with keep-alive agents (one connection pool
 * per process part that owns it).
 *
 * @remarks Why not `fetch` and the `openai` client's request path: the client builds each call
 * through its request machinery and undici's fetch wraps the answer in web streams. Measured on
 * loopback against an instant streaming provider (docs/benchmarks.md, twentieth pass; decision
 * 0232), the client and fetch took 480–600 µs of CPU per call with an `AsyncLocalStorage` active,
 * this path 140–170 µs. Redirects are never followed (`node:http` does not follow them; the
 * caller fails the call on a 3xx), so the conversation and the key go only where the agent's
 * settings say. Idle connections are dropped after {@link IDLE_SOCKET_MS}; a request whose kept
 * connection the provider had closed meanwhile (reset before any answer) is sent once more at
 * once on a new one, as Node's documentation advises (`request.reusedSocket`).
 */
export class ProviderHttp {
  readonly #http = new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
  readonly #https = new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });

  /**
   * Sends `body` to `url` and resolves when the answer's status and headers arrived.
   *
   * @param timeoutMs how long the answer may take to begin; past it the request is dropped with
   * a {@link ProviderConnectionError} ("Request timed out.", as the `openai` client said).
   * @throws ProviderConnectionError when the connection fails or the answer does not begin in time.
   * @throws ProviderAbortError when `signal` aborts first.
   */
  post(
    url: URL,
    headers: OutgoingHttpHeaders,
    body: Uint8Array,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ProviderResponse> {
    return this.#send(url, headers, body, signal, timeoutMs, true);
  }

  #send(
    url: URL,
    headers: OutgoingHttpHeaders,
    body: Uint8Array,
    signal: AbortSignal,
    timeoutMs: number,
    mayResend: boolean,
  ): Promise<ProviderResponse> {
    if (signal.aborted) return Promise.reject(new ProviderAbortError());
    const startedAt = performance.now();
    return new Promise((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const options = {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        headers: Object.assign({}, headers, { 'content-length': body.byteLength }),
        signal,
      };
      const request = (secure ? https : http).request(url, options, (response) => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: response });
      });
      const timer = setTimeout(
        () => request.destroy(new ProviderTimeoutError()),
        Math.min(Math.max(timeoutMs, 0), MAX_TIMER_MS),
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (signal.aborted) return reject(new ProviderAbortError());
        if (error instanceof ProviderConnectionError) return reject(error);
        if (mayResend && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          // A kept connection the provider closed as this request went out: nothing was answered.
          const left = timeoutMs - (performance.now() - startedAt);
          return resolve(this.#send(url, headers, body, signal, left, false));
        }
        reject(new ProviderConnectionError(error.message, { cause: error }));
      });
      request.end(body);
    });
  }

  /** Closes every connection, those of calls in flight too (a stopping server: `dispose`). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/**
 * The body as text, at most `maxBytes` of it (decoded as UTF-8, a cut character replaced): an
 * error answer is read for its message only, and a provider that sends more is not read further.
 *
 * @throws ProviderBodyError (a ProviderConnectionError, with the text received) when the body
 * breaks off; ProviderAbortError when `signal` aborts.
 */
export function readBodyText(
  body: IncomingMessage,
  signal: AbortSignal,
  maxBytes = Infinity,
  /** `cut`: what came up to `maxBytes` is the text; `fail`: a body past it breaks off (ProviderBodyError). */
  overMax: 'cut' | 'fail' = 'cut',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (settle: () => void) => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const text = () => new TextDecoder().decode(Buffer.concat(chunks, length).subarray(0, maxBytes));
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length < maxBytes || (overMax === 'fail' && length === maxBytes)) return;
      // Enough for the message (or too much for an answer): the rest is not read, and the
      // connection is not kept.
      body.destroy();
      if (overMax === 'fail') done(() => reject(new ProviderBodyError(`the answer passed ${maxBytes} bytes`, text())));
      else done(() => resolve(text()));
    };
    const onEnd = () => done(() => resolve(text()));
    const onError = (error: Error) =>
      done(() =>
        reject(
          signal.aborted ? new ProviderAbortError() : new ProviderBodyError(error.message, text(), { cause: error }),
        ),
      );
    const onAbort = () => {
      body.destroy();
      done(() => reject(new ProviderAbortError()));
    };
    if (signal.aborted) return onAbort();
    if (body.destroyed)
      return done(() => reject(new ProviderBodyError('the answer was closed before it was read', '')));
    body.on('data', onData).on('end', onEnd).on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
