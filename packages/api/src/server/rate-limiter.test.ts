import { FakeClock } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('lets a burst of n through at once, refuses n+1 with the wait until the next token', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 4, burst: 3 }, clock);
    expect(limiter.take('alice')).toBeNull();
    expect(limiter.take('alice')).toBeNull();
    expect(limiter.take('alice')).toBeNull();
    expect(limiter.take('alice')).toBe(250);
  });

  it('refills one token per 1/perSecond: refused 1 ms before, accepted at, refused again right after', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 4, burst: 1 }, clock);
    expect(limiter.take('alice')).toBeNull();
    clock.advance(249);
    expect(limiter.take('alice')).toBe(1);
    clock.advance(1);
    expect(limiter.take('alice')).toBeNull();
    expect(limiter.take('alice')).toBe(250);
  });

  it('never fills a bucket past its burst, however long the owner was idle', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 10, burst: 2 }, clock);
    clock.advance(3_600_000);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([null, null, 100]);
  });

  it('keeps owners apart: one owner at its limit never slows another', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, clock);
    expect(limiter.take('alice')).toBeNull();
    expect(limiter.take('alice')).toBe(1000);
    expect(limiter.take('bob')).toBeNull();
  });

  it('rounds a fractional rate up, so the wait it answers is always enough', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 3, burst: 1 }, clock);
    limiter.take('a');
    const wait = limiter.take('a') as number;
    expect(wait).toBe(334);
    clock.advance(wait - 1);
    expect(limiter.take('a')).not.toBeNull();
    clock.advance(1);
    expect(limiter.take('a')).toBeNull();
  });

  it('charges into debt: the next operation waits until the debt and its own token are refilled', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 2, burst: 10 }, clock);
    for (let i = 0; i < 5; i++) expect(limiter.take('a')).toBeNull();
    // 5 left; 8 charged: 3 in debt, so a token is 4 away (2 s at 2 per second).
    limiter.charge('a', 8);
    expect(limiter.take('a')).toBe(2000);
    clock.advance(1999);
    expect(limiter.take('a')).toBe(1);
    clock.advance(1);
    expect(limiter.take('a')).toBeNull();
    // Another owner's bucket is untouched.
    expect(limiter.take('b')).toBeNull();
  });

  it('charges at most the burst, and nothing for 0 or fewer tokens', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 1, burst: 3 }, clock);
    limiter.charge('a', 0);
    limiter.charge('a', -4);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([
      null,
      null,
      null,
      1000,
    ]);
    clock.advance(3000);
    // 3 held, 1,000 charged: cut to 3, the bucket is empty, not 997 in debt.
    limiter.charge('a', 1_000);
    expect(limiter.take('a')).toBe(1000);
  });
});
