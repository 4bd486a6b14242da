import { asOwnerId } from '@agent-teams/core';
import { FakeClock } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';
import { REPLAY_EVENTS_PER_TOKEN, replayCharge } from './replay-charge.js';

const owner = asOwnerId('alice');
const n = REPLAY_EVENTS_PER_TOKEN;

/** The tokens a catch-up of `events` took from a full bucket of `burst`. */
function charged(events: number, burst = 100): number {
  const limiter = new RateLimiter({ perSecond: 1, burst }, new FakeClock(0));
  replayCharge(limiter)(owner, events);
  // At one token a second, the wait until the bucket is full again is the tokens taken, in seconds.
  return limiter.waitMs(owner, burst) / 1000;
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

  it('charges at most the burst less the subscribe token, so a full bucket always pays both', () => {
    expect(charged(1_000 * n, 4)).toBe(3);
    expect(charged(1_000 * n, 1)).toBe(0);
  });

  it('refuses a catch-up the bucket cannot pay with RATE_LIMITED, taking nothing, and the wait for a retry', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 2, burst: 10 }, clock);
    expect(limiter.take(owner, 8)).toBeNull();
    const charge = replayCharge(limiter);
    // 2 tokens left; 3 asked. The retry needs its subscribe token too: 4, so 1 s at 2 per second.
    expect(() => charge(owner, 3 * n)).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED', details: { field: 'afterSeq', retryAfterMs: 1000 } }),
    );
    expect(limiter.waitMs(owner, 2)).toBe(0);
    clock.advance(1000);
    expect(limiter.take(owner)).toBeNull();
    expect(() => charge(owner, 3 * n)).not.toThrow();
    expect(limiter.waitMs(owner, 1)).toBe(500);
  });

  it('charges nothing without a limiter', () => {
    expect(() => replayCharge(null)(owner, 1_000_000)).not.toThrow();
  });
});
