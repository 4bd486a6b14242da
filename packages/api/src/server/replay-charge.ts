import { DomainError, ErrorCode, type OwnerId } from '@agent-teams/core';
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

/** Takes the tokens a catch-up of `events` events costs `owner`; throws when they are not there. */
export type ReplayCharge = (owner: OwnerId, events: number) => void;

/**
 * The catch-up charge on `rateLimiter` (null: no limiter, nothing charged), taken after the
 * subscribe's own token: one token per {@link REPLAY_EVENTS_PER_TOKEN} events, at most the burst
 * less that token, so a full bucket always pays a subscribe with its catch-up.
 *
 * @throws DomainError RATE_LIMITED, taking nothing more, when the owner's bucket cannot pay: the
 * subscription does not start, as for any refused operation. `retryAfterMs` is the wait until the
 * bucket holds the retry's subscribe token and its catch-up both.
 */
export function replayCharge(rateLimiter: RateLimiter | null): ReplayCharge {
  return (owner, events) => {
    if (rateLimiter === null) return;
    const tokens = Math.min(Math.floor(Math.max(0, events) / REPLAY_EVENTS_PER_TOKEN), rateLimiter.burst - 1);
    if (tokens <= 0 || rateLimiter.take(owner, tokens) === null) return;
    throw new DomainError(
      ErrorCode.RATE_LIMITED,
      'This catch-up replays too many events for now; retry after the given delay.',
      { field: 'afterSeq', retryAfterMs: rateLimiter.waitMs(owner, tokens + 1) },
    );
  };
}
