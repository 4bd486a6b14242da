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

  it('takes several tokens all or none, and cuts a charge above the burst to the burst', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter({ perSecond: 2, burst: 5 }, clock);
    expect(limiter.take('a', 3)).toBeNull();
    // 2 left: 3 more are refused, taking nothing; the 2 are still there.
    expect(limiter.take('a', 3)).toBe(500);
    expect(limiter.waitMs('a', 2)).toBe(0);
    expect(limiter.take('a', 2)).toBeNull();
    clock.advance(10_000);
    // 50 asked of a bucket of 5: a full bucket pays it.
    expect(limiter.waitMs('a', 50)).toBe(0);
    expect(limiter.take('a', 50)).toBeNull();
    expect(limiter.waitMs('a', 50)).toBe(2500);
  });
});
