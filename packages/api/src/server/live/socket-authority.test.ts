import { asOwnerId } from '@agent-teams/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Authenticator, Credential } from '../../auth/authenticator.js';
import { SocketAuthority } from './socket-authority.js';

/** An authenticator on the fake timers' clock, granting `credential` to any value. */
function authenticatorOf(credential: Credential | null): Authenticator {
  return {
    authenticate: async () => credential,
    stillValid: (_authorization, held) => held.expiresAtMs === null || Date.now() < held.expiresAtMs,
    msLeft: (held) => (held.expiresAtMs === null ? null : held.expiresAtMs - Date.now()),
  };
}

const owner = asOwnerId('user-1');

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SocketAuthority', () => {
  it('calls onExpiry once, at the expiry, and is no longer valid from then on', async () => {
    const onExpiry = vi.fn();
    const authority = new SocketAuthority(authenticatorOf({ owner, expiresAtMs: Date.now() + 5_000 }), onExpiry);
    expect(await authority.grant('Bearer x')).toBe(owner);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(authority.valid()).toBe(true);
    expect(onExpiry).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(authority.valid()).toBe(false);
    expect(onExpiry).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("waits out an expiry beyond setTimeout's range in steps instead of firing at once", async () => {
    const onExpiry = vi.fn();
    const far = 3_000_000_000;
    const authority = new SocketAuthority(authenticatorOf({ owner, expiresAtMs: Date.now() + far }), onExpiry);
    await authority.grant('Bearer x');
    await vi.advanceTimersByTimeAsync(2_147_483_647);
    expect(onExpiry).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(far - 2_147_483_647);
    expect(onExpiry).toHaveBeenCalledTimes(1);
  });

  it('holds no timer for a credential without expiry, and grants nothing once ended', async () => {
    const authority = new SocketAuthority(authenticatorOf({ owner, expiresAtMs: null }), vi.fn());
    expect(await authority.grant('Bearer static')).toBe(owner);
    expect(vi.getTimerCount()).toBe(0);
    const ended = new SocketAuthority(authenticatorOf({ owner, expiresAtMs: Date.now() + 1_000 }), vi.fn());
    const granting = ended.grant('Bearer x');
    ended.end();
    expect(await granting).toBeNull();
    expect(ended.owner).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a credential already past its expiry and one the authenticator refused', async () => {
    const expired = new SocketAuthority(authenticatorOf({ owner, expiresAtMs: Date.now() }), vi.fn());
    expect(await expired.grant('Bearer x')).toBeNull();
    const refused = new SocketAuthority(authenticatorOf(null), vi.fn());
    expect(await refused.grant('Bearer x')).toBeNull();
    expect(refused.valid()).toBe(false);
  });
});
