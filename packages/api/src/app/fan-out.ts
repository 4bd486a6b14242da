import type { EventSink, Logger } from '@agent-teams/core';

/**
 * Sends committed events to several listeners; one failing listener never blocks the others.
 *
 * @param sinks - read at every batch, so listeners built after the store (the scheduler, the
 * cluster feed) can be added once they exist.
 */
export function fanOut(sinks: () => readonly EventSink[], logger: Logger): EventSink {
  return {
    published(events, rows) {
      for (const sink of sinks()) {
        try {
          sink.published(events, rows);
        } catch (error) {
          // Named by what it was about: no async context carries a request's or a step's fields.
          logger.error('event listener failed', { teamId: events[0]?.teamId, events: events.length, error });
        }
      }
    },
  };
}
