import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { ProviderAbortError, ProviderConnectionError } from './provider-http.js';

/**
 * How long, after the stream's last event, the body may take to end before it is cancelled.
 *
 * @remarks A provider sends `data: [DONE]` and then ends the HTTP response; the end often comes in
 * a later packet. Cancelling the body at `[DONE]` closes the connection when the end has not
 * arrived yet, so the next model call opens (and, over HTTPS, handshakes) a new one: measured on
 * loopback with the end 5 ms behind `[DONE]`, 50 calls opened 51 connections when cancelled and 2
 * when read to the end. The end is read after the answer was returned, so no call waits for it; a
 * response that has not ended by then is cut off.
 */
export const SSE_END_LINGER_MS = 250;

/**
 * The most characters one event may hold (its `data:` lines and what has not yet ended a line):
 * a provider that sends more, or a line that never ends, fails the call instead of filling memory.
 * A streamed chunk holds one delta; 4 Mi characters is far beyond any real one.
 */
export const SSE_EVENT_MAX_CHARS = 4 * 1024 * 1024;

/** The last event of a stream: after it, the rest of the body is only read to its end. */
export interface SseEnd {
  readonly data: string;
  /** How long the body may take to end after it ({@link SSE_END_LINGER_MS}). */
  readonly lingerMs: number;
}

/** An event longer than {@link SSE_EVENT_MAX_CHARS}. */
export class SseEventTooLargeError extends Error {
  constructor(maxChars: number) {
    super(`an event of more than ${maxChars} characters`);
    this.name = 'SseEventTooLargeError';
  }
}

/**
 * Reads the `data:` payloads of a Server-Sent Events body in order, handing each to `onData`,
 * and resolves when the body ended or the event whose data is `end.data` arrived.
 *
 * @remarks The bytes are parsed by `eventsource-parser` (line endings, comments, multi-line data
 * joined with `\n`); a leading byte-order mark is dropped here, since the parser only knows it as
 * bytes and the body arrives decoded. An event the body's end cuts short still counts, as the
 * `openai` client read it. The limit counts characters: an event of many short `data:` lines
 * costs the parser more memory than its characters (measured: about 130 MiB of heap at the limit). What stays in our hands is the stream's life:
 * - an abort of `signal` ends the read at once, even if the body never ends, and destroys it;
 * - `onData` throwing destroys the body and rejects with what it threw;
 * - after `end.data` the body is not destroyed (that would close a connection that can serve
 *   the next call): the rest is read and dropped, and the body is destroyed only if it has not
 *   ended within `end.lingerMs`. The caller has its answer at once either way.
 *
 * @returns `'end-event'` when `end.data` arrived, `'ended'` when the body ended without it.
 * @throws ProviderAbortError, ProviderConnectionError (the body broke off),
 * SseEventTooLargeError, or what `onData` threw.
 */
export function readSseEvents(
  body: Readable,
  signal: AbortSignal,
  end: SseEnd,
  onData: (data: string) => void,
  maxEventChars = SSE_EVENT_MAX_CHARS,
): Promise<'end-event' | 'ended'> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let failure: Error | null = null;
    let sawEnd = false;
    const parser = createParser({
      maxBufferSize: maxEventChars,
      onEvent: (event) => {
        if (sawEnd || failure !== null) return;
        if (event.data === end.data) {
          sawEnd = true;
          return;
        }
        try {
          onData(event.data);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
        }
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') failure ??= new SseEventTooLargeError(maxEventChars);
      },
    });
    const detach = () => {
      body.off('data', onChunk).off('end', onEnd).off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      detach();
      body.destroy();
      reject(error);
    };
    let first = true;
    const onChunk = (chunk: string) => {
      if (first) {
        first = false;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      parser.feed(chunk);
      if (failure !== null) fail(failure);
      else if (sawEnd) {
        settled = true;
        detach();
        drainInBackground(body, end.lingerMs);
        resolve('end-event');
      }
    };
    const onEnd = () => {
      // An event the end cut short (no blank line after it) is still the provider's last word.
      parser.feed('\n\n');
      if (failure !== null) return fail(failure);
      settled = true;
      detach();
      resolve(sawEnd ? 'end-event' : 'ended');
    };
    const onError = (error: Error) =>
      fail(signal.aborted ? new ProviderAbortError() : new ProviderConnectionError(error.message, { cause: error }));
    const onAbort = () => fail(new ProviderAbortError());
    if (signal.aborted) return onAbort();
    if (body.destroyed) return fail(new ProviderConnectionError('the answer was closed before it was read'));
    body.setEncoding('utf8');
    body.on('data', onChunk).on('end', onEnd).on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads and drops the rest of a body; destroys it when it has not ended within `lingerMs`. */
function drainInBackground(body: Readable, lingerMs: number): void {
  // Never what keeps a stopping process alive: the answer is already out.
  const timer = setTimeout(() => body.destroy(), lingerMs).unref();
  const finish = () => clearTimeout(timer);
  body.once('end', finish).once('close', finish);
  // A failure after the answer was complete: nothing to keep, nothing to report.
  body.on('error', () => undefined);
  body.resume();
}
