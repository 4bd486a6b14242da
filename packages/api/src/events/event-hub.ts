import type { CommittedRows, EventSink, TeamEvent, TeamId } from '@agent-teams/core';

/**
 * An in-process {@link EventSink} that wakes subscriptions when events commit.
 *
 * @remarks It carries wake-ups, not data: a subscription re-reads the team's event log from the
 * last seq it delivered, so a missed or early wake-up can never cause a gap or a duplicate. Other
 * servers' events reach it through the cluster change feed (`cluster/`), like local ones.
 */
export interface EventHub extends EventSink {
  /**
   * Resolves at the next `published` that touches the team (or when `signal` aborts).
   * Register it BEFORE reading the log, so an event committed during the read still wakes you.
   */
  waitForTeam(teamId: TeamId, signal?: AbortSignal): Promise<void>;
  /** Calls `listener` with every published batch (and its rows, if told); returns the unsubscribe function. */
  listen(listener: (events: readonly TeamEvent[], rows?: CommittedRows) => void): () => void;
  /** How many listeners are registered (tests wait until a subscription is set up). */
  readonly listening: number;
  /** How many `waitForTeam` calls wait on the team now (tests wait until a held call waits). */
  waitingFor(teamId: TeamId): number;
}

/** The events of one published commit (or one page of the log), whose views load together. */
export interface ViewBatch {
  /** What that commit wrote, as stored (a local commit's), so its views need not read it back. */
  readonly rows?: CommittedRows;
}

/** Creates an empty hub; one per server. */
export function createEventHub(): EventHub {
  const waiters = new Map<TeamId, Set<() => void>>();
  const listeners = new Set<(events: readonly TeamEvent[], rows?: CommittedRows) => void>();

  return {
    published(events, rows) {
      for (const teamId of new Set(events.map((event) => event.teamId))) {
        const waiting = waiters.get(teamId);
        waiters.delete(teamId);
        for (const wake of waiting ?? []) wake();
      }
      for (const listener of [...listeners]) listener(events, rows);
    },
    waitForTeam(teamId, signal) {
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          waiters.get(teamId)?.delete(wake);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        let set = waiters.get(teamId);
        if (!set) {
          set = new Set();
          waiters.set(teamId, set);
        }
        set.add(wake);
      });
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listening() {
      return listeners.size;
    },
    waitingFor(teamId) {
      return waiters.get(teamId)?.size ?? 0;
    },
  };
}
