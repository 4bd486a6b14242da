import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTeam } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { ClientPool, RawSocket, until } from './live-clients.js';

const TEAM_SEQ = 'subscription($t: ID!) { teamEvents(teamId: $t) { seq } }';

let stack: GraphqlStack;
let pool: ClientPool;
let wsUrl: string;

beforeAll(async () => {
  stack = await createGraphqlStack({
    scheduler: false,
    live: {
      initTimeoutMs: 300,
      maxSubscriptionsPerOwner: 25,
      keepAliveMs: 100,
      highWaterMarkBytes: 256 * 1024,
      allowedOrigins: ['https://host.example'],
    },
  });
  const { url } = await stack.server.listen(0, '127.0.0.1');
  wsUrl = `${url.replace('http', 'ws')}/graphql`;
  pool = new ClientPool(wsUrl);
});
afterAll(async () => {
  await pool.dispose();
  await stack.close();
});

/** Subscribes `count` times to `teamEvents` on a raw socket; returns the ids. */
function subscribeMany(raw: RawSocket, teamId: string, count: number, prefix: string): string[] {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  for (const id of ids) raw.send({ type: 'subscribe', id, payload: { query: TEAM_SEQ, variables: { t: teamId } } });
  return ids;
}

const errorCode = (raw: RawSocket, id: string) =>
  raw
    .waitFor((frame) => frame.id === id && frame.type === 'error')
    .then((frame) => (frame.payload as { extensions?: { code?: string } }[])[0]?.extensions?.code);

describe('socket limits', () => {
  it('closes a socket that does not initialise in time with 4408', async () => {
    const raw = await pool.raw();
    expect((await raw.closed).code).toBe(4408);
  });

  it('closes with 4403 for an unknown token, 4401 for subscribe before init, 4400 for garbage, 4409 for a reused id', async () => {
    const unknown = await pool.raw();
    unknown.send({ type: 'connection_init', payload: { authorization: 'Bearer tok-mallory' } });
    expect((await unknown.closed).code).toBe(4403);

    const early = await pool.raw();
    early.send({ type: 'subscribe', id: '1', payload: { query: '{ __typename }' } });
    expect((await early.closed).code).toBe(4401);

    const garbage = await pool.raw();
    await garbage.init(TOKENS.alice);
    garbage.send('not json');
    expect((await garbage.closed).code).toBe(4400);

    const team = await createTeam(stack);
    const twice = await pool.raw();
    await twice.init(TOKENS.alice);
    subscribeMany(twice, team.id, 1, 'same');
    subscribeMany(twice, team.id, 1, 'same');
    expect((await twice.closed).code).toBe(4409);
  });

  it('closes a socket that sends a message over 64 KiB with 1009', async () => {
    const raw = await pool.raw();
    await raw.init(TOKENS.alice);
    raw.send({ type: 'subscribe', id: 'big', payload: { query: `{ __typename }#${'x'.repeat(65 * 1024)}` } });
    expect((await raw.closed).code).toBe(1009);
  });

  it('refuses the 21st subscription of a socket and the operations over the owner cap', async () => {
    const team = await createTeam(stack);
    const first = await pool.raw();
    await first.init(TOKENS.alice);
    subscribeMany(first, team.id, 20, 'a');
    const [over = ''] = subscribeMany(first, team.id, 1, 'over');
    expect(await errorCode(first, over)).toBe('SUBSCRIPTION_LIMIT');
    // 20 running on the first socket; the owner cap is 25, so a second socket gets 5 more.
    const second = await pool.raw();
    await second.init(TOKENS.alice);
    const ids = subscribeMany(second, team.id, 6, 'b');
    expect(await errorCode(second, ids[5] ?? '')).toBe('SUBSCRIPTION_LIMIT');
    expect(second.frames.filter((frame) => frame.type === 'error')).toHaveLength(1);
    // Another owner is not affected by alice's count.
    const bobTeam = await createTeam(stack, TOKENS.bob);
    const bob = await pool.raw();
    await bob.init(TOKENS.bob);
    subscribeMany(bob, bobTeam.id, 1, 'bob');
    // Completing frees a slot.
    first.send({ type: 'complete', id: 'a0' });
    await until(async () => {
      const [id = ''] = subscribeMany(second, team.id, 1, `retry${Date.now()}`);
      const frame = await second.waitFor((f) => f.id === id, 200).catch(() => null);
      return frame === null;
    }, 'a freed slot');
    expect(bob.frames.filter((frame) => frame.type === 'error')).toHaveLength(0);
    for (const raw of [first, second, bob]) raw.socket.close();
    await Promise.all([first.closed, second.closed, bob.closed]);
  });

  it('validates every subscribe with the HTTP limits (depth) and answers QUERY_LIMIT on both', async () => {
    const deep = `query { viewer { teams { edges { node { members { team { members { team { members { team {
      members { team { id } } } } } } } } } } } } }`;
    const http = await stack.gql(deep);
    expect(codes(http)).toEqual(['QUERY_LIMIT']);
    const raw = await pool.raw();
    await raw.init(TOKENS.alice);
    raw.send({ type: 'subscribe', id: 'deep', payload: { query: deep } });
    expect(await errorCode(raw, 'deep')).toBe('QUERY_LIMIT');
    const aliases = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
    expect(codes(await stack.gql(aliases))).toEqual(['QUERY_LIMIT']);
    raw.send({ type: 'subscribe', id: 'aliases', payload: { query: aliases } });
    expect(await errorCode(raw, 'aliases')).toBe('QUERY_LIMIT');
    const tokens = `{ ${'__typename '.repeat(2_001)} }`;
    expect(codes(await stack.gql(tokens))).toEqual(['QUERY_LIMIT']);
    raw.send({ type: 'subscribe', id: 'tokens', payload: { query: tokens } });
    expect(await errorCode(raw, 'tokens')).toBe('QUERY_LIMIT');
  });

  it('refuses an upgrade from a foreign Origin and accepts loopback, the same origin and configured ones', async () => {
    await expect(pool.raw({ Origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:9', 'https://host.example']) {
      const raw = await pool.raw({ Origin: origin });
      await raw.init(TOKENS.alice);
    }
  });

  it('pings every socket and drops one that stops answering', async () => {
    const answering = await pool.raw();
    await answering.init(TOKENS.alice);
    let pings = 0;
    answering.socket.on('ping', () => {
      pings += 1;
    });
    await until(() => pings >= 3, 'keep-alive pings');
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    // A client that never answers pings is terminated (no close frame: 1006 on this side).
    const silent = new RawSocket(new WebSocket(wsUrl, 'graphql-transport-ws', { autoPong: false }));
    await new Promise((resolve) => silent.socket.once('open', resolve));
    await silent.init(TOKENS.alice);
    expect((await silent.closed).code).toBe(1006);
  });

  it('closes a consumer that does not read with 4100 (resume) instead of buffering', async () => {
    // Its own server: many operations per socket, so one socket can queue megabytes of answers.
    const own = await createGraphqlStack({
      scheduler: false,
      live: { maxSubscriptionsPerSocket: 1_000, maxSubscriptionsPerOwner: 1_000, highWaterMarkBytes: 256 * 1024 },
    });
    const { url } = await own.server.listen(0, '127.0.0.1');
    const ownPool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
    const raw = await ownPool.raw();
    await raw.init(TOKENS.alice);
    (raw.socket as WebSocket & { _socket: { pause(): void } })._socket.pause();
    const query = '{ __schema { types { name description fields { name description args { name description } } } } }';
    // Each answer is tens of KiB; the kernel buffers fill, then the server's queue passes 256 KiB.
    for (let i = 0; i < 400; i++) raw.send({ type: 'subscribe', id: `q${i}`, payload: { query } });
    await until(
      () => own.logger.entries.some((entry) => entry.level === 'warn' && entry.fields.bufferedBytes !== undefined),
      'the server to give up on the slow consumer',
    );
    (raw.socket as WebSocket & { _socket: { resume(): void } })._socket.resume();
    const { code } = await raw.closed;
    expect(code).toBe(4100);
    await ownPool.dispose();
    await own.close();
  });
});
