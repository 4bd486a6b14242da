import type { EventSink, TeamEvent } from '@agent-teams/core';

/**
 * An {@link EventSink} that wakes whoever is attached (the scheduler) after each commit.
 *
 * @remarks The store is built before the scheduler and needs its sink at construction; the
 * composition root creates this sink first, hands it to the store, and passes it to
 * `createScheduler`, which attaches its `wake`.
 */
export interface WakeSink extends EventSink {
  /** Calls `listener` after every published batch; returns the detach function. */
  attach(listener: () => void): () => void;
}

/** Creates a {@link WakeSink} with no listener attached yet. */
export function createWakeSink(): WakeSink {
  const listeners = new Set<() => void>();
  return {
    published(events: readonly TeamEvent[]): void {
      if (events.length === 0) return;
      for (const listener of listeners) listener();
    },
    attach(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
