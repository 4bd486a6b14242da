import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../../test/graphql/graphql-stack.js';
import { ClientPool, type RawSocket } from '../../test/live/live-clients.js';
import { OwnerSlots } from './owner-slots.js';

/** A small cap, so the test opens few sockets; the default is `LIVE_DEFAULTS.maxSocketsPerOwner`. */
const MAX = 4;

let stack: GraphqlStack;
let pool: ClientPool;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, live: { maxSocketsPerOwner: MAX } });
  const { url } = await stack.server.listen(0, '127.0.0.1');
  pool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
});
afterAll(async () => {
  await pool.dispose();
  await stack.close();
});

async function opened(token: string): Promise<RawSocket> {
  const raw = await pool.raw();
  raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
  return raw;
}

const acked = (raw: RawSocket) => raw.waitFor((frame) => frame.type === 'connection_ack');

describe('authenticated sockets per owner', () => {
  it(`acknowledges ${MAX - 1} and ${MAX}, closes one more with 4429, and frees a place when a socket closes`, async () => {
    const held = await Promise.all(Array.from({ length: MAX }, () => opened(TOKENS.alice)));
    await Promise.all(held.map(acked));
    const over = await opened(TOKENS.alice);
    expect(await over.closed).toEqual({ code: 4429, reason: 'Too many sockets for this owner' });
    // Another owner is not held back by alice's sockets.
    await acked(await opened(TOKENS.bob));
    // A refused init never counted: one closed socket frees exactly one place.
    held[0]?.socket.close();
    await held[0]?.closed;
    const again = await opened(TOKENS.alice);
    await acked(again);
    const overAgain = await opened(TOKENS.alice);
    expect((await overAgain.closed).code).toBe(4429);
  });

  it('counts nothing for a socket refused at its init, nor twice for one released twice', () => {
    const sockets = new OwnerSlots(2);
    const owner = 'owner-x' as Parameters<OwnerSlots['take']>[0];
    const first = sockets.take(owner);
    const second = sockets.take(owner);
    expect(sockets.take(owner)).toBeNull();
    first?.();
    first?.();
    expect(sockets.held(owner)).toBe(1);
    second?.();
    expect(sockets.held(owner)).toBe(0);
  });
});
