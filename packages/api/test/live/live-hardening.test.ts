import { FakeClock } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { type ClientPool, openLivePool, type RawSocket, TEAM_EVENTS, until } from './live-clients.js';
import { clientFrame, FrameSocket, Opcode } from './raw-frames.js';

/** Tokens whose lookup fails like a broken auth adapter would: always, or once `flaky` is switched on. */
class FailingTokens extends Map<string, string> {
  flaky = false;
  override get(token: string): string | undefined {
    if (token === 'tok-boom' || (token === 'tok-flaky' && this.flaky)) throw new Error('token store down');
    return super.get(token);
  }
}

const tokens = new FailingTokens([
  [TOKENS.alice, 'alice'],
  [TOKENS.bob, 'bob'],
  ['tok-flaky', 'carol'],
]);
/**
 * The keep-alive interval of this file's server: short enough that the cases waiting for a tick
 * (a re-check of carol's token, a stalled fragment dropped) end within seconds, long enough that no
 * healthy socket is dropped. A socket whose pong is still unread at the next tick is dropped
 * (1006), and here the clients share the server's event loop: at 100 ms, a loop stalled past one
 * interval under load dropped the observers, which then waited for their event until the test
 * timed out. Under load average 8.6 on 2 CPUs the loop stalled for up to 1.1 s (largest of six
 * runs, `monitorEventLoopDelay`).
 */
const KEEP_ALIVE_MS = 3_000;

let stack: GraphqlStack;
let pool: ClientPool;
let wsUrl: string;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, tokens, live: { keepAliveMs: KEEP_ALIVE_MS } });
  ({ pool, wsUrl } = await openLivePool(stack.server));
});
afterAll(async () => {
  await pool.dispose();
  await stack.close();
});

/**
 * A socket of `token` subscribed to one team's events from its first one, once the subscription
 * runs (its first event arrived): from the start, so no event can fall between its subscribe and
 * the moment its source starts following the team.
 */
async function observer(teamId: string, token: string = TOKENS.bob) {
  const raw = await pool.raw();
  await raw.init(token);
  raw.send({ type: 'subscribe', id: 'watch', payload: { query: TEAM_EVENTS, variables: { teamId, afterSeq: 0 } } });
  await raw.waitFor((frame) => frame.id === 'watch' && frame.type === 'next');
  return raw;
}

/** True once the observer got an event naming `jobId`. */
const sawJob = (raw: RawSocket, jobId: string) =>
  raw.frames.some(
    (frame) =>
      frame.id === 'watch' &&
      frame.type === 'next' &&
      (frame.payload as { data?: { teamEvents?: { job?: { id?: string } } } }).data?.teamEvents?.job?.id === jobId,
  );
const operations = (owner: string) => stack.server.live.operationsOf(owner as never);

/** The server still serves: HTTP answers a new request, and a bob observer gets its event. */
async function stillServing(watch: RawSocket, team: { id: string; members: readonly { id: string }[] }) {
  const [jobId] = await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], 'still there?', TOKENS.bob);
  await until(() => sawJob(watch, jobId ?? ''), 'the observer to get the new job');
}

describe('one message, one socket', () => {
  it.each([
    ['94 ASCII bytes', 'x'.repeat(94)],
    ['24 emoji', '😀'.repeat(24)],
    ['128 bytes of CJK and ASCII', `${'数'.repeat(42)}xx`],
  ])('closes only the socket that reuses an id of %s, with 4409 and a short reason of its own', async (_name, id) => {
    const team = await createTeam(stack, TOKENS.bob);
    const watch = await observer(team.id);
    expect(operations('bob')).toBe(1);
    const raw = await pool.raw();
    await raw.init(TOKENS.alice);
    const subscribe = { type: 'subscribe', id, payload: { query: '{ viewer { id } }' } };
    const long = { type: 'subscribe', id, payload: { query: TEAM_EVENTS, variables: { teamId: 'none' } } };
    raw.send(long);
    raw.send(subscribe);
    const { code, reason } = await raw.closed;
    expect(code).toBe(4409);
    expect(reason).toBe('Subscriber already exists');
    expect(reason).not.toContain(id.slice(0, 4));
    await until(() => operations('alice') === 0, "alice's count to return to zero");
    await stillServing(watch, team);
    watch.socket.close();
    await watch.closed;
    await until(() => operations('bob') === 0, "bob's count to return to zero");
  });

  it('closes with 4400 for an id over 128 bytes, a binary frame and invalid UTF-8 (1007, by ws)', async () => {
    const long = await pool.raw();
    await long.init(TOKENS.alice);
    long.send({ type: 'subscribe', id: 'y'.repeat(129), payload: { query: '{ viewer { id } }' } });
    expect((await long.closed).code).toBe(4400);
    const binary = await pool.raw();
    await binary.init(TOKENS.alice);
    binary.socket.send(Buffer.from('{"type":"ping"}'), { binary: true });
    expect((await binary.closed).code).toBe(4400);
    const invalid = await pool.raw();
    await invalid.init(TOKENS.alice);
    invalid.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await invalid.closed).code).toBe(1007);
  });

  it('turns a handler that throws into close 4500 for that socket only, logged, the server still serving', async () => {
    const team = await createTeam(stack, TOKENS.bob);
    const watch = await observer(team.id);
    stack.logger.clear();
    const raw = await pool.raw();
    raw.send({ type: 'connection_init', payload: { authorization: 'Bearer tok-boom' } });
    const { code, reason } = await raw.closed;
    expect([code, reason]).toEqual([4500, 'Internal server error']);
    // Authentication is asynchronous (a host token may wait for its key set): its failure is the init's.
    expect(stack.logger.entries.some((entry) => entry.fields.what === 'init')).toBe(true);
    await stillServing(watch, team);
    watch.socket.close();
  });

  it('frees the slot of an operation that failed half-way (its delivery threw)', async () => {
    const team = await createTeam(stack, TOKENS.bob);
    const watch = await observer(team.id);
    const carol = await pool.raw();
    await carol.init('tok-flaky');
    carol.send({ type: 'subscribe', id: 'c', payload: { query: '{ __typename }' } });
    carol.send({ type: 'subscribe', id: 'inbox', payload: { query: 'subscription { inboxChanged { id } }' } });
    await until(() => operations('carol') === 1, "carol's subscription to run");
    tokens.flaky = true;
    try {
      // The next keep-alive tick re-checks carol's token; the lookup throws inside the tick.
      const { code } = await carol.closed;
      expect(code).toBe(4500);
      expect(operations('carol')).toBe(0);
    } finally {
      tokens.flaky = false;
    }
    await stillServing(watch, team);
    watch.socket.close();
  });
});

describe('slow and silent peers', () => {
  it('drops a peer that keeps a fragmented message open while still answering pings', async () => {
    const peer = await FrameSocket.open(wsUrl);
    peer.sendText(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${TOKENS.alice}` } }));
    await until(() => peer.messages.some((text) => text.includes('connection_ack')), 'the ack');
    // The first fragment of a message whose end never comes.
    peer.write(clientFrame(Buffer.from('{"type":'), Opcode.TEXT, false));
    await peer.closed;
    expect(peer.socket.destroyed).toBe(true);
  });
});

describe('rate limit on subscribes', () => {
  it('refuses the subscribe after the burst with RATE_LIMITED and retryAfterMs, never answers or cancels, never another owner', async () => {
    const clock = new FakeClock(0);
    const limited = await createGraphqlStack({
      scheduler: false,
      rateLimit: { perSecond: 1, burst: 2 },
      rateClock: clock,
    });
    const { pool: limitedPool } = await openLivePool(limited.server);
    try {
      const raw = await limitedPool.raw();
      await raw.init(TOKENS.alice);
      const run = async (id: string, query: string) => {
        raw.send({ type: 'subscribe', id, payload: { query } });
        return raw.waitFor((frame) => frame.id === id && frame.type !== 'complete');
      };
      expect((await run('1', '{ viewer { id } }')).type).toBe('next');
      expect((await run('2', '{ viewer { id } }')).type).toBe('next');
      const refused = await run('3', '{ viewer { id } }');
      expect(refused.type).toBe('error');
      expect((refused.payload as { extensions: unknown }[])[0]?.extensions).toMatchObject({
        code: 'RATE_LIMITED',
        retryAfterMs: 1000,
      });
      // Answers and cancels pass (here: refused by the domain, not by the limiter).
      const respond = await run(
        '4',
        'mutation { respond(input: { jobId: "job_x", response: "y", clientRequestId: "r" }) { job { id } } }',
      );
      expect(JSON.stringify(respond.payload)).not.toContain('RATE_LIMITED');
      const cancel = await run('5', 'mutation { cancelJob(input: { jobId: "job_x" }) { job { id } } }');
      expect(JSON.stringify(cancel.payload)).not.toContain('RATE_LIMITED');
      const bob = await limitedPool.raw();
      await bob.init(TOKENS.bob);
      bob.send({ type: 'subscribe', id: 'b', payload: { query: '{ viewer { id } }' } });
      expect((await bob.waitFor((frame) => frame.id === 'b')).type).toBe('next');
      clock.advance(999);
      expect((await run('6', '{ viewer { id } }')).type).toBe('error');
      clock.advance(1);
      expect((await run('7', '{ viewer { id } }')).type).toBe('next');
    } finally {
      await limitedPool.dispose();
      await limited.close();
    }
  });
});
