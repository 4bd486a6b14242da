import { agentTeamsHandlers, createWidgetFake, LiveClose } from '@agent-teams/testkit/msw';
import fc from 'fast-check';
import type { RequestHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_EVENTS } from './api.js';

// Hostile clients against testkit's graphql-ws fake: whatever a socket sends, the handler never
// throws, answers or closes with one of the server's codes, and keeps serving a well-behaved client.
const endpoint = 'http://fuzz.test/graphql';
const url = endpoint.replace('http', 'ws');
const fake = createWidgetFake();
const team = fake.createTeam({
  name: 'Fuzz',
  goal: 'Survive',
  members: [
    { name: 'Ada', agentId: 'researcher' },
    { name: 'Bo', agentId: 'writer' },
  ],
});
const server = setupServer(...(agentTeamsHandlers({ endpoint, token: 'tok', fake }) as unknown as RequestHandler[]));
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'bypass' });
  process.on('uncaughtException', onUncaught);
});
afterAll(() => {
  server.close();
  process.off('uncaughtException', onUncaught);
});

const KNOWN_CLOSES = new Set<number>([...Object.values(LiveClose), 1000, 1005]);
const TYPES = ['connection_init', 'ping', 'pong', 'subscribe', 'complete', 'next', 'error', 'bogus'];

const json = fc.jsonValue({ maxDepth: 3 });
/** One client frame: raw text, any JSON, or a protocol-shaped message with hostile fields. */
const frame = fc.oneof(
  fc.string({ maxLength: 40 }),
  json.map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        type: fc.oneof(fc.constantFrom(...TYPES), json),
        id: fc.oneof(fc.constantFrom('1', '2', ''), json),
        payload: fc.oneof(
          json,
          fc.record({
            query: fc.oneof(
              fc.constantFrom(TEAM_EVENTS, 'subscription { jobProgress(jobId: "x") { textDelta } }'),
              json,
            ),
            variables: fc.oneof(json, fc.constant({ teamId: team.id, afterSeq: 0 })),
            authorization: fc.oneof(fc.constant('Bearer tok'), json),
          }),
        ),
      },
      { requiredKeys: [] },
    )
    .map((message) => JSON.stringify(message)),
);

/** Opens a socket, sends the frames, and resolves with its close code (null: still open at the end). */
async function run(frames: readonly string[]): Promise<number | null> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  let code: number | null = null;
  const closed = new Promise<void>((resolve) =>
    socket.addEventListener('close', (event) => {
      code = event.code;
      resolve();
    }),
  );
  await new Promise((resolve) => socket.addEventListener('open', resolve));
  for (const text of frames) {
    if (code !== null) break;
    socket.send(text);
  }
  // A ping round trip: every frame before it has been handled once its pong (or a close) arrives.
  if (code === null) {
    const settled = new Promise<void>((resolve) =>
      socket.addEventListener('message', (event) => String(event.data).includes('"pong"') && resolve()),
    );
    socket.send(JSON.stringify({ type: 'ping' }));
    await Promise.race([settled, closed]);
  }
  const result = code;
  if (result === null) socket.close();
  return result;
}

describe('agentTeamsHandlers WebSocket under hostile frames', () => {
  it('never throws, closes only with known codes, and keeps serving a well-behaved client', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { maxLength: 8 }), async (frames) => {
        const code = await run(frames);
        if (code !== null) expect(KNOWN_CLOSES.has(code)).toBe(true);
        expect(uncaught).toEqual([]);
      }),
      { numRuns: 60 },
    );
    // Still serving: a proper client gets the team's events replayed.
    const events: unknown[] = [];
    const socket = new WebSocket(url, 'graphql-transport-ws');
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer tok' } }));
      socket.send(
        JSON.stringify({
          id: 'ok',
          type: 'subscribe',
          payload: { query: TEAM_EVENTS, variables: { teamId: team.id, afterSeq: 0 } },
        }),
      );
    });
    socket.addEventListener('message', (event) => events.push(JSON.parse(String(event.data))));
    await expect.poll(() => events.some((e) => (e as { type: string }).type === 'next')).toBe(true);
    socket.close();
  });

  it('closes 4400 on JSON that is not an object (null, a number, an array)', async () => {
    for (const text of ['null', '5', '[]', '"init"']) expect(await run([text])).toBe(LiveClose.badRequest);
    expect(uncaught).toEqual([]);
  });
});
