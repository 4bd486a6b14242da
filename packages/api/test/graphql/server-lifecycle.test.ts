import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTeam } from './fixtures.js';
import { createGraphqlStack, TOKENS } from './graphql-stack.js';

describe('the real HTTP server', () => {
  it('serves /health and GraphQL on a loopback port, then closes with a live subscription open', async () => {
    const stack = await createGraphqlStack({ scheduler: false });
    const { url } = await stack.server.listen(0, '127.0.0.1');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const viewer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.bob}` },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    expect(await viewer.json()).toEqual({ data: { viewer: { id: 'bob' } } });

    const team = await createTeam(stack);
    const client = createClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${TOKENS.alice}` },
      retryAttempts: 0,
    });
    const ended = new Promise<string>((resolve) => {
      client.subscribe(
        {
          query: 'subscription($id: ID!) { teamEvents(teamId: $id, afterSeq: 0) { seq } }',
          variables: { id: team.id },
        },
        { next: () => {}, error: () => resolve('error'), complete: () => resolve('complete') },
      );
    });
    // Wait for the replay to arrive, so the subscription is parked waiting for a wake-up.
    await new Promise<void>((resolve) => client.on('message', () => resolve()));

    const started = Date.now();
    await stack.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(['error', 'complete']).toContain(await ended);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    await client.dispose();
  });
});
