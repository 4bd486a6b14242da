import type { Logger } from '@agent-teams/core';

type Level = 'info' | 'warn' | 'error';

/**
 * Writes one JSON line per entry to stderr (stdout carries the `listening on` line and the
 * development token that scripts read). `quiet` drops info lines, for tests.
 */
export function createConsoleLogger(opts: { quiet?: boolean } = {}): Logger {
  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (opts.quiet && level === 'info') return;
    const entry: Record<string, unknown> = {
      level,
      time: new Date().toISOString(),
      message,
      ...fields,
    };
    for (const [key, value] of Object.entries(entry)) {
      if (value instanceof Error) entry[key] = { name: value.name, message: value.message, stack: value.stack };
    }
    process.stderr.write(`${JSON.stringify(entry)}\n`);
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}
