/**
 * The lines of a server's output that the console logger wrote with `message` (one JSON object
 * per line), parsed; other lines (`listening on`, the development token) are skipped.
 */
export function logLinesOf(output: string, message: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.message === message) lines.push(entry);
    } catch {
      // A line cut by the output buffer's start, or not the logger's: not a log entry.
    }
  }
  return lines;
}

/** The value of one sample (`name{labels} value`) of a running server's `/metrics`, or undefined. */
export async function metricOf(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
