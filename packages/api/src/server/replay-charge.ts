import type { OwnerId } from '@agent-teams/core';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Events of a `teamEvents` catch-up (`afterSeq` behind the team's head) one rate-limit token
 * pays for, beyond the subscribe's own token.
 *
 * @remarks A subscribe took one token however much it replayed, and a catch-up of a full ring
 * (256 events, each executed for the subscription's document) costs about as much CPU as 40
 * other operations. One owner churning subscribes within its rate (200 subscriptions) held
 * another owner's requests at p50 159 ms and up to 1 s. Charged by size, the same bucket bounds
 * the CPU of replays as it bounds operations. 32 is a delivery pass (`EVENTS_PER_PASS`): a
 * reconnecting widget a few events behind pays nothing more.
 */
export const REPLAY_EVENTS_PER_TOKEN = 32;

/** Charges `owner` for a catch-up of `events` events, after its subscribe's own token was taken. */
export type ReplayCharge = (owner: OwnerId, events: number) => void;

/**
 * The catch-up charge on `rateLimiter` (null: no limiter, nothing charged): one token per
 * {@link REPLAY_EVENTS_PER_TOKEN} events, at most the burst less the subscribe's own token,
 * charged into debt when the bucket does not hold them (`RateLimiter.charge`).
 *
 * @remarks Never a refusal: the subscribe already passed the limiter, and refusing a catch-up the
 * bucket cannot pay yet would let an owner's cheap operations keep draining it, so the catch-up
 * might never start (100 sockets retrying theirs after each `retryAfterMs` replayed nothing for
 * seconds). In debt, the owner's next operations are refused with `RATE_LIMITED` until the bucket
 * is repaid, so its catch-ups and operations together keep to its rate.
 */
export function replayCharge(rateLimiter: RateLimiter | null): ReplayCharge {
  return (owner, events) => {
    if (rateLimiter === null) return;
    const tokens = Math.min(Math.floor(Math.max(0, events) / REPLAY_EVENTS_PER_TOKEN), rateLimiter.burst - 1);
    rateLimiter.charge(owner, tokens);
  };
}
