import { DomainError, ErrorCode, type OwnerId } from '@agent-teams/core';
import { LIVE_DEFAULTS } from '../live/live-options.js';

/**
 * A2A requests one owner may keep following a task at once on this server: streams
 * (`SendStreamingMessage`, `SubscribeToTask`) and blocking `SendMessage`s. The same number as the
 * owner's running GraphQL subscriptions (`maxSubscriptionsPerOwner`): each holds a connection and
 * a cursor over the team feed, as a subscription does; without a cap one owner opened 3,000 of
 * them (150 MB, every one woken by each event of the team), up to the process's file limit.
 */
export const MAX_A2A_FOLLOWS_PER_OWNER = LIVE_DEFAULTS.maxSubscriptionsPerOwner;

/** The follows each owner holds open on the A2A endpoint (one registry per server). */
export class FollowSlots {
  readonly #counts = new Map<OwnerId, number>();

  constructor(readonly max: number = MAX_A2A_FOLLOWS_PER_OWNER) {}

  /**
   * Takes one of `owner`'s slots and answers its release (idempotent), or throws
   * SUBSCRIPTION_LIMIT when the owner holds them all; nothing is changed then.
   */
  take(owner: OwnerId): () => void {
    const held = this.#counts.get(owner) ?? 0;
    if (held >= this.max) {
      throw new DomainError(
        ErrorCode.SUBSCRIPTION_LIMIT,
        `Too many tasks followed at once (at most ${this.max}); close a stream first.`,
        { perOwner: this.max },
      );
    }
    this.#counts.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#counts.get(owner) ?? 1) - 1;
      if (left > 0) this.#counts.set(owner, left);
      else this.#counts.delete(owner);
    };
  }

  /** Slots `owner` holds now (tests). */
  held(owner: OwnerId): number {
    return this.#counts.get(owner) ?? 0;
  }
}
