import type { JobId, Logger, RunId, RunState, RuntimeNotice } from '@agent-teams/core';
import type { ProgressEvent } from './run-execution.js';

/** Finished states kept in memory, so the poll after an instant start costs no query. */
const ENDED_CACHE_SIZE = 1_000;

/** Keys of runs launched in this process remembered for a repeated `start` (see `launched`). */
const LAUNCHED_KEYS = 1_000;

/**
 * The bookkeeping every runtime shares: listeners for pushed notices, a bounded cache of ended
 * runs, the runs launched here by key, and single-flight joining of concurrent calls for one run
 * key (so a retried call never starts a turn twice). Durable state stays in each runtime's own tables.
 */
export class RunNotices {
  readonly #listeners = new Set<(notice: RuntimeNotice) => void>();
  readonly #ended = new Map<string, RunState>();
  readonly #calls = new Map<string, Promise<{ runId: RunId }>>();
  /** The run of each key launched here, newest last (bounded like the ended runs' cache). */
  readonly #launched = new Map<string, RunId>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Registers a listener; returns its unsubscribe function. */
  subscribe(listener: (notice: RuntimeNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Delivers a notice to every listener; a failing listener is logged, never thrown. */
  emit(notice: RuntimeNotice): void {
    for (const listener of this.#listeners) {
      try {
        listener(notice);
      } catch (error) {
        this.#logger.warn('runtime listener failed', { error: String(error) });
      }
    }
  }

  /** Reports the progress of a run of `jobId` to the listeners. */
  progress(runId: RunId, jobId: JobId): (event: ProgressEvent) => void {
    return (event) =>
      this.emit({
        type: 'progress',
        progress:
          event.type === 'text'
            ? { type: 'text', runId, jobId, delta: event.delta }
            : { type: 'tool', runId, jobId, name: event.name },
      });
  }

  /** Drops every listener (dispose). */
  clear(): void {
    this.#listeners.clear();
  }

  /** The cached final state of a run, if it ended in this process recently. */
  ended(runId: string): RunState | undefined {
    return this.#ended.get(runId);
  }

  /** Forgets a run's cached final state (the stored one differs: another execution ended it). */
  forget(runId: string): void {
    this.#ended.delete(runId);
  }

  /** Caches a run's final state (oldest entry evicted past the bound) and returns it. */
  remember(runId: string, state: RunState): RunState {
    if (this.#ended.size >= ENDED_CACHE_SIZE) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
    this.#ended.set(runId, state);
    return state;
  }

  /** The run of a key launched (or ended) in this process, if it is still remembered. */
  launched(runKey: string): RunId | undefined {
    return this.#launched.get(runKey);
  }

  /** Remembers the run of a key launched (or ended) here, so a repeated start reads nothing. */
  rememberLaunched(runKey: string, runId: RunId): void {
    this.#launched.delete(runKey);
    if (this.#launched.size >= LAUNCHED_KEYS) this.#launched.delete(this.#launched.keys().next().value as string);
    this.#launched.set(runKey, runId);
  }

  /** Joins concurrent calls for one run key: the second caller gets the first call's promise. */
  once(runKey: string, call: () => Promise<{ runId: RunId }>): Promise<{ runId: RunId }> {
    const inFlight = this.#calls.get(runKey);
    if (inFlight) return inFlight;
    const promise = call().finally(() => this.#calls.delete(runKey));
    this.#calls.set(runKey, promise);
    return promise;
  }
}
