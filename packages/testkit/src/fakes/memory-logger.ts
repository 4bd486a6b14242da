import type { Logger } from '@agent-teams/core';

/** One line a {@link MemoryLogger} kept. */
export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/**
 * A {@link Logger} that keeps every line in memory, so a test can assert that a recovered
 * failure was reported (the core logs instead of throwing in those cases).
 */
export class MemoryLogger implements Logger {
  readonly #entries: LogEntry[] = [];

  /** Every line logged so far, oldest first. */
  get entries(): readonly LogEntry[] {
    return this.#entries;
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.#entries.push({ level: 'info', message, fields });
  }

  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.#entries.push({ level: 'warn', message, fields });
  }

  error(message: string, fields: Record<string, unknown> = {}): void {
    this.#entries.push({ level: 'error', message, fields });
  }

  /** The lines of one level. */
  at(level: LogEntry['level']): readonly LogEntry[] {
    return this.#entries.filter((entry) => entry.level === level);
  }

  /** Forgets every line. */
  clear(): void {
    this.#entries.length = 0;
  }
}
