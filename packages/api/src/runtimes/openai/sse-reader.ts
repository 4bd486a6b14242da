/**
 * Reads the `data:` payloads of a Server-Sent Events body, one per event, in order.
 *
 * @remarks Written here rather than using the client's stream iterator so that failure and
 * cancellation stay in our hands: a read races the abort signal (an aborted run stops at once,
 * even if the body never ends), and leaving early cancels the body without waiting for it
 * (observed: awaiting the cancel of an abandoned mocked body can hang forever). Comment lines
 * (`:`) and other fields are ignored; multi-line data is joined with `\n`, as the SSE spec says.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string> {
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
        if (data !== null) yield data;
      }
    }
  } finally {
    signal.removeEventListener('abort', aborted);
    if (!finished) void reader.cancel().catch(() => undefined);
  }
}

/** The joined `data:` lines of one event, or null when it has none. */
function eventData(event: string): string | null {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return null;
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
}
