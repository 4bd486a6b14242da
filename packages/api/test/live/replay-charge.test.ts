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
/** Long enough to repay any debt (at most the burst) and fill the bucket. */
const REFILL_MS = 2 * FULL_MS;
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
  // Enough events for a catch-up from the start to be charged the most it can be: 3 tokens here.
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

/** The extensions of the error a subscribe's first frame answers (the guard's `error` frame, or a result's), or null. */
function refusal(frame: { type: string; payload?: unknown }): Record<string, unknown> | null {
  const errors = frame.type === 'error' ? frame.payload : (frame.payload as { errors?: unknown }).errors;
  const [first] = (errors ?? []) as { extensions: Record<string, unknown> }[];
  return first?.extensions ?? null;
}

const seqs = (socket: RawSocket, id: string) =>
  socket.frames
    .filter((frame) => frame.id === id && frame.type === 'next')
    .flatMap((frame) => (frame.payload as { data?: { teamEvents: { seq: number } } }).data?.teamEvents.seq ?? []);

/** The wait an operation on `socket` is refused with now (null: it ran). */
async function nextWait(socket: RawSocket, id: string): Promise<unknown> {
  socket.send({ type: 'subscribe', id, payload: { query: '{ viewer { id } }' } });
  const answered = refusal(await socket.waitFor((frame) => frame.id === id));
  return answered === null ? null : answered.retryAfterMs;
}

describe('a teamEvents catch-up is charged by its size', () => {
  it('replays the whole log on a full bucket, then the owner waits for the tokens it spent', async () => {
    const alice = await pool.raw();
    await alice.init(TOKENS.alice);
    clock.advance(REFILL_MS);
    expect(refusal(await follow(alice, 'all', 0))).toBeNull();
    await alice.waitFor(() => seqs(alice, 'all').at(-1) === head);
    expect(seqs(alice, 'all')[0]).toBe(1);
    // The subscribe's token and 3 for the catch-up: the bucket is empty.
    expect(await nextWait(alice, 'after-all')).toBe(1_000);
  });

  it('never refuses a catch-up the bucket cannot pay: it runs, and the debt delays the next operation', async () => {
    const alice = await pool.raw();
    await alice.init(TOKENS.alice);
    clock.advance(REFILL_MS);
    expect(refusal(await follow(alice, 'first', 0))).toBeNull();
    // One token back: the subscribe's own. Its catch-up of 3 tokens runs in debt.
    clock.advance(1_000);
    expect(refusal(await follow(alice, 'second', 0))).toBeNull();
    await alice.waitFor(() => seqs(alice, 'second').at(-1) === head);
    // 3 in debt: a token is 4 s away.
    expect(await nextWait(alice, 'in-debt')).toBe(FULL_MS);
    // Another owner's bucket is untouched.
    const bob = await pool.raw();
    await bob.init(TOKENS.bob);
    const bobTeam = await createTeam(stack, TOKENS.bob);
    expect(refusal(await follow(bob, 'bob', 0, bobTeam.id))).toBeNull();
    clock.advance(FULL_MS);
    expect(await nextWait(alice, 'repaid')).toBeNull();
  });

  it.each([
    [REPLAY_EVENTS_PER_TOKEN - 1, 1_000],
    [REPLAY_EVENTS_PER_TOKEN, 2_000],
    [REPLAY_EVENTS_PER_TOKEN + 1, 2_000],
  ])(
    'with only the subscribe token left, a catch-up of %i events makes the next operation wait %i ms',
    async (events, wait) => {
      const alice = await pool.raw();
      await alice.init(TOKENS.alice);
      // Full, then 3 taken: one token left, the subscribe's.
      clock.advance(REFILL_MS);
      for (const id of ['a', 'b', 'c']) expect(await nextWait(alice, id)).toBeNull();
      expect(refusal(await follow(alice, 'probe', head - events))).toBeNull();
      await alice.waitFor(() => seqs(alice, 'probe').length === events);
      expect(await nextWait(alice, 'next')).toBe(wait);
    },
  );
});
