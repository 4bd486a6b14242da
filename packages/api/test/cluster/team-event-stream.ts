import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { type LiveEvent, TEAM_EVENTS } from '../live/live-clients.js';
import type { ServerProcess } from './server-process.js';

/** A `teamEvents` subscription collecting what it receives. */
export interface EventStream {
  readonly events: LiveEvent[];
  /** The error the server ended the subscription with, if any. */
  readonly error: () => unknown;
  close(): Promise<void>;
}

/** Subscribes to `teamEvents` on `server` over graphql-ws and keeps every event in arrival order. */
export function subscribeTeamEvents(
  server: ServerProcess,
  token: string,
  teamId: string,
  afterSeq?: number,
): EventStream {
  const client = createClient({
    url: server.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const events: LiveEvent[] = [];
  let failure: unknown = null;
  const iterator = client.iterate<{ teamEvents: LiveEvent }>({
    query: TEAM_EVENTS,
    variables: afterSeq === undefined ? { teamId } : { teamId, afterSeq },
  });
  const loop = (async () => {
    try {
      for await (const result of iterator) {
        if (result.errors) failure = result.errors;
        else if (result.data) events.push(result.data.teamEvents);
      }
    } catch (error) {
      failure = error;
    }
  })();
  return {
    events,
    error: () => failure,
    async close() {
      await iterator.return?.();
      await client.dispose();
      await loop;
    },
  };
}
