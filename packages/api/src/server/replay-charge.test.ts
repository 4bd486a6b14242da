import { asOwnerId } from '@agent-teams/core';
import { FakeClock } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';
import { REPLAY_EVENTS_PER_TOKEN, replayCharge } from './replay-charge.js';

const owner = asOwnerId('alice');
const n = REPLAY_EVENTS_PER_TOKEN;

/** The tokens a catch-up of `events` charged to an emptied bucket of `burst`. */
function charged(events: number, burst = 100): number {
  const limiter = new RateLimiter({ perSecond: 1, burst }, new FakeClock(0));
  for (let i = 0; i < burst; i++) limiter.take(owner);
  replayCharge(limiter)(owner, events);
  // At one token a second, the next token is (1 + the debt) seconds away.
  return (limiter.take(owner) ?? 0) / 1000 - 1;
}

describe('replayCharge', () => {
  it.each([
    [0, 0],
    [n - 1, 0],
    [n, 1],
    [n + 1, 1],
    [2 * n - 1, 1],
    [2 * n, 2],
    [-5, 0],
  ])('charges a catch-up of %i events %i tokens', (events, tokens) => {
    expect(charged(events)).toBe(tokens);
  });

  it('charges at most the burst less the subscribe token', () => {
    expect(charged(1_000 * n, 4)).toBe(3);
    expect(charged(1_000 * n, 1)).toBe(0);
  });

  it('charges nothing without a limiter', () => {
    expect(() => replayCharge(null)(owner, 1_000_000)).not.toThrow();
  });
});
