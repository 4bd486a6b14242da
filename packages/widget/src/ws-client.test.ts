import { ws } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLiveSocket } from './ws-client.js';

const url = 'ws://widget.test/graphql';
const link = ws.link(url);
/** What the fake server does once it has read a connection_init: ack then close, or close at once. */
let answer: 'ack-then-4403' | '4403-at-init' | 'ack-then-4500' | 'ack-and-serve' = 'ack-then-4403';
const inits: unknown[] = [];
/** Subscribe ids per connection, in order. */
const subscribes: string[][] = [];
const server = setupServer(
  link.addEventListener('connection', ({ client }) => {
    const ids: string[] = [];
    subscribes.push(ids);
    client.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as { type: string; id?: string; payload?: unknown };
      if (frame.type === 'subscribe') ids.push(String(frame.id));
      if (frame.type === 'connection_init') {
        inits.push(frame.payload);
        if (answer === '4403-at-init') return client.close(4403, 'Forbidden');
        client.send(JSON.stringify({ type: 'connection_ack' }));
      }
      if (frame.type === 'subscribe' && answer !== 'ack-and-serve') {
        client.close(answer === 'ack-then-4403' ? 4403 : 4500, 'Forbidden');
      }
    });
  }),
);
beforeAll(() => server.listen());
afterEach(() => {
  inits.length = 0;
  subscribes.length = 0;
});
afterAll(() => server.close());

/** Subscribes once on a fresh socket and resolves with the error the sink saw. */
async function firstError(token: () => Promise<string | null>) {
  const socket = createLiveSocket(url, token);
  const error = vi.fn();
  socket.subscribe('subscription { x }', {}, { next: () => {}, error, complete: () => {} });
  await vi.waitFor(() => expect(error).toHaveBeenCalled());
  socket.dispose();
  return error.mock.calls[0]?.[0];
}

describe('createLiveSocket', () => {
  it('asks for the token at every socket and tells the caller to reauthenticate when a live socket gets 4403', async () => {
    let minted = 0;
    answer = 'ack-then-4403';
    expect(await firstError(async () => `Bearer t-${++minted}`)).toEqual({ dropped: true, reauthenticate: true });
    expect(await firstError(async () => `Bearer t-${++minted}`)).toEqual({ dropped: true, reauthenticate: true });
    expect(inits).toEqual([{ authorization: 'Bearer t-1' }, { authorization: 'Bearer t-2' }]);
  });

  it('does not ask to reauthenticate when the token is refused at init, or the socket closes otherwise', async () => {
    answer = '4403-at-init';
    expect(await firstError(async () => 'Bearer bad')).toEqual({ dropped: true });
    answer = 'ack-then-4500';
    expect(await firstError(async () => 'Bearer ok')).toEqual({ dropped: true });
  });

  it('starts each subscription once when a status listener subscribes as the socket comes up', async () => {
    answer = 'ack-and-serve';
    const socket = createLiveSocket(url, async () => 'Bearer ok');
    const sink = { next: () => {}, error: () => {}, complete: () => {} };
    socket.onStatus((up) => {
      if (up) socket.subscribe('subscription { y }', {}, sink);
    });
    socket.subscribe('subscription { x }', {}, sink);
    await vi.waitFor(() => expect(subscribes[0]).toHaveLength(2));
    expect(new Set(subscribes[0]).size).toBe(2);
    socket.dispose();
  });
});
