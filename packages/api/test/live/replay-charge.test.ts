import { asOwnerId, asTeamId } from '@agent-teams/core';
import { FakeClock } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_EVENTS_PER_TOKEN } from '../../src/server/replay-charge.js';
import { createTeam, sendRequest, type TeamFixture } from '../graphql/fixtures.js';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { type ClientPool, openLivePool, type RawSocket, TEAM_EVENTS } from './live-clients.js';

/** One token a second, four at once: a subscribe and a catch-up of three tokens empty a full bucket. */
const RATE = { perSecond: 1, burst: 4 };
const FULL_MS = 4_000;
const clock = new FakeClock(0);
let stack: GraphqlStack;
let pool: ClientPool;
let team: TeamFixture;
let head: number;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, rateLimit: RATE, rateClock: clock });
  ({ pool } = await openLivePool(stack.server));
  clock.advance(FULL_MS);
  team = await createTeam(stack, TOKENS.alice);
  // Enough events for a catch-up from the start to cost more than the burst allows.
  for (let sent = 0; (await lastSeq()) < 3 * REPLAY_EVENTS_PER_TOKEN; sent += 1) {
    if (sent > 100) throw new Error('the team never reached its events');
    clock.advance(FULL_MS);
    await sendRequest(stack, team.id, [team.members[sent % 2]?.id ?? ''], `event filler ${sent}`, TOKENS.alice);
  }
  head = await lastSeq();
});
afterAll(async () => {
  await pool.dispose();
  await stack.close();
});

async function lastSeq(): Promise<number> {
  const found = await stack.core.teams.get(asOwnerId('alice'), asTeamId(team.id));
  return found?.lastEventSeq ?? 0;
}

/** Subscribes `id` to the team's events after `afterSeq`; the first frame that answers it. */
async function follow(socket: RawSocket, id: string, afterSeq: number, teamId = team.id) {
  socket.send({ type: 'subscribe', id, payload: { query: TEAM_EVENTS, variables: { teamId, afterSeq } } });
  return socket.waitFor((frame) => frame.id === id);
}

/**
 * The extensions of the error a subscribe's first frame answers, or null for an event. A refusal
 * from the subscription's own resolver comes as a `next` with errors (then `complete`), as
 * RESUME_EXPIRED does; the operation guard's as an `error` frame.
 */
function refusal(frame: { type: string; payload?: unknown }): Record<string, unknown> | null {
  const errors = frame.type === 'error' ? frame.payload : (frame.payload as { errors?: unknown }).errors;
  const [first] = (errors ?? []) as { extensions: Record<string, unknown> }[];
  return first?.extensions ?? null;
}

const seqs = (socket: RawSocket, id: string) =>
  socket.frames
    .filter((frame) => frame.id === id && frame.type === 'next')
    .flatMap((frame) => (frame.payload as { data?: { teamEvents: { seq: number } } }).data?.teamEvents.seq ?? []);

describe('a teamEvents catch-up is charged by its size', () => {
  it('lets a full bucket pay a subscribe with a catch-up of the whole log, and replays all of it', async () => {
    const alice = await pool.raw();
    await alice.init(TOKENS.alice);
    clock.advance(FULL_MS);
    expect(refusal(await follow(alice, 'all', 0))).toBeNull();
    await alice.waitFor(() => seqs(alice, 'all').at(-1) === head);
    expect(seqs(alice, 'all')[0]).toBe(1);
  });

  it('refuses a catch-up the bucket cannot pay with RATE_LIMITED on afterSeq, delivering nothing, until the wait passed', async () => {
    const alice = await pool.raw();
    await alice.init(TOKENS.alice);
    clock.advance(FULL_MS);
    expect(refusal(await follow(alice, 'first', 0))).toBeNull();
    // One token back: the subscribe's own. Its catch-up of 3 tokens is refused, the whole retry named.
    clock.advance(1_000);
    const refused = await follow(alice, 'second', 0);
    expect(refusal(refused)).toMatchObject({
      code: 'RATE_LIMITED',
      field: 'afterSeq',
      retryAfterMs: FULL_MS,
    });
    expect(seqs(alice, 'second')).toEqual([]);
    // Another owner's catch-up is not slowed.
    const bob = await pool.raw();
    await bob.init(TOKENS.bob);
    const bobTeam = await createTeam(stack, TOKENS.bob);
    expect(refusal(await follow(bob, 'bob', 0, bobTeam.id))).toBeNull();
    // After the wait, the same catch-up is paid.
    clock.advance(FULL_MS);
    expect(refusal(await follow(alice, 'retry', 0))).toBeNull();
    await alice.waitFor(() => seqs(alice, 'retry').at(-1) === head);
  });

  it.each([
    [REPLAY_EVENTS_PER_TOKEN - 1, 'events'],
    [REPLAY_EVENTS_PER_TOKEN, 'RATE_LIMITED'],
    [REPLAY_EVENTS_PER_TOKEN + 1, 'RATE_LIMITED'],
  ])('with only the subscribe token left, a catch-up of %i events answers %s', async (events, answer) => {
    const alice = await pool.raw();
    await alice.init(TOKENS.alice);
    // Empty the bucket, then one token back.
    clock.advance(FULL_MS);
    expect(refusal(await follow(alice, 'drain', 0))).toBeNull();
    clock.advance(1_000);
    const answered = refusal(await follow(alice, 'probe', head - events));
    expect(answered?.code ?? 'events').toBe(answer);
    if (answered === null) await alice.waitFor(() => seqs(alice, 'probe').length === events);
  });
});
