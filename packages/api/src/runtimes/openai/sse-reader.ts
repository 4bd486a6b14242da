/**
 * How long, after the stream's last event, the body may take to end before it is cancelled.
 *
 * @remarks A provider sends `data: [DONE]` and then ends the HTTP response; the end often comes in
 * a later packet. Cancelling the body at `[DONE]` makes fetch close the connection when the end
 * has not arrived yet, so the next model call opens (and, over HTTPS, handshakes) a new one:
 * measured on loopback with the end 5 ms behind `[DONE]`, 50 calls opened 51 connections when
 * cancelled and 2 when read to the end. A provider that never ends the response costs at most this
 * much more per call.
 */
export const SSE_END_LINGER_MS = 250;

/** The last event of a stream: once its data was read, the body is only read to its end. */
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
 * With `end`, the event whose data is `end.data` is the last one yielded: the body is then read
 * to its end (keeping the connection for the next request) for at most `end.lingerMs`, and
 * whatever else it carries is dropped.
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
        yield data;
        if (end !== undefined && data === end.data) {
          finished = await readToEnd(reader, abortedPromise, end.lingerMs);
          return;
        }
      }
    }
  } finally {
    signal.removeEventListener('abort', aborted);
    if (!finished) void reader.cancel().catch(() => undefined);
  }
}

/** Reads and drops the rest of a body; true once it ended within `lingerMs` (false: aborted or too slow). */
async function readToEnd(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  aborted: Promise<'aborted'>,
  lingerMs: number,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), lingerMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), aborted, late]);
      if (next === 'aborted' || next === 'late') return false;
      if (next.done) return true;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The joined `data:` lines of one event, or null when it has none. */
function eventData(event: string): string | null {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return null;
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
}
