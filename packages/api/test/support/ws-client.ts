import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOKENS } from './test-app.js';

/** A graphql-ws client of a listening server (its base URL), as the owner of `token`. */
export function wsClient(baseUrl: string, token: string = TOKENS.alice): Client {
  return createClient({
    url: `${baseUrl.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
}

/**
 * Runs a subscription and collects what `pick` takes from each result until `done` says stop;
 * a result with errors rejects with their JSON. Gives up after `timeoutMs` (the subscription is
 * then returned, and what was collected so far is answered).
 */
export async function collect<T>(
  client: Client,
  request: { query: string; variables?: Record<string, unknown> },
  pick: (data: Record<string, unknown>) => T,
  done: (items: readonly T[]) => boolean,
  timeoutMs = 10_000,
): Promise<T[]> {
  const items: T[] = [];
  const iterator = client.iterate<Record<string, unknown>>(request);
  const timeout = setTimeout(() => void iterator.return?.(), timeoutMs);
  try {
    for await (const result of iterator) {
      if (result.errors) throw new Error(JSON.stringify(result.errors));
      if (result.data) items.push(pick(result.data));
      if (done(items)) break;
    }
  } finally {
    clearTimeout(timeout);
  }
  return items;
}
