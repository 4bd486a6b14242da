/**
 * How long, after the stream's last event, the body may take to end before it is cancelled.
 *
 * @remarks A provider sends `data: [DONE]` and then ends the HTTP response; the end often comes in
 * a later packet. Cancelling the body at `[DONE]` makes fetch close the connection when the end
 * has not arrived yet, so the next model call opens (and, over HTTPS, handshakes) a new one:
 * measured on loopback with the end 5 ms behind `[DONE]`, 50 calls opened 51 connections when
 * cancelled and 2 when read to the end. The end is read after the answer was returned, so no call
 * waits for it; a response that has not ended by then is cut off.
 */
export const SSE_END_LINGER_MS = 250;

/** The last event of a stream: after it, the rest of the body is only read to its end. */
export interface SseEnd {
  readonly data: string;
  /** How long the body may take to end after it ({@link SSE_END_LINGER_MS}). */
  readonly lingerMs: number;
}

/**
 * Reads the `data:` payloads of a Server-Sent Events body, one per event, in order.
 *
 * @remarks Written here rather than using the client's stream iterator so that failure and
 * cancellation stay in our hands: a read races the abort signal (an aborted run stops at once,
 * even if the body never ends), and leaving early cancels the body without waiting for it
 * (observed: awaiting the cancel of an abandoned mocked body can hang forever). Comment lines
 * (`:`) and other fields are ignored; multi-line data is joined with `\n`, as the SSE spec says.
 * With `end`, a consumer that stops after the event whose data is `end.data` does not cancel
 * the body: the rest is read and dropped in the background (so the connection serves the next
 * request), and the body is cancelled only if it has not ended within `end.lingerMs`. The
 * consumer has its answer at once either way.
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  end?: SseEnd,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let aborted: () => void = () => {};
  const abortedPromise = new Promise<'aborted'>((resolve) => {
    aborted = () => resolve('aborted');
  });
  if (signal.aborted) aborted();
  signal.addEventListener('abort', aborted, { once: true });
  let buffer = '';
  let finished = false;
  let sawEnd = false;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), abortedPromise]);
      if (next === 'aborted') return;
      if (next.done) {
        buffer += decoder.decode();
        finished = true;
        const data = eventData(buffer);
        if (data !== null) yield data;
        return;
      }
      buffer += decoder.decode(next.value, { stream: true });
      for (;;) {
        const match = /\r?\n\r?\n/.exec(buffer);
        if (!match) break;
        const event = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        const data = eventData(event);
        if (data === null) continue;
        if (end !== undefined && data === end.data) sawEnd = true;
        yield data;
      }
    }
  } finally {
    signal.removeEventListener('abort', aborted);
    if (!finished) {
      if (sawEnd && end !== undefined && !signal.aborted) void finishInBackground(reader, end.lingerMs);
      else void reader.cancel().catch(() => undefined);
    }
  }
}

/** Reads and drops the rest of a body; cancels it when it has not ended within `lingerMs`. */
async function finishInBackground(reader: ReadableStreamDefaultReader<Uint8Array>, lingerMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    // Never what keeps a stopping process alive: the answer is already out.
    timer = setTimeout(() => resolve('late'), lingerMs).unref();
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') break;
      if (next.done) return;
    }
  } catch {
    // The body failed after the answer was complete: nothing to keep, nothing to report.
    return;
  } finally {
    clearTimeout(timer);
  }
  await reader.cancel().catch(() => undefined);
}

/** The joined `data:` lines of one event, or null when it has none. */
function eventData(event: string): string | null {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return null;
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
}
