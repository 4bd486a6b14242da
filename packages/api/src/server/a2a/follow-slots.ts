import { DomainError, ErrorCode, type OwnerId } from '@agent-teams/core';
import { LIVE_DEFAULTS } from '../live/live-options.js';
import { OwnerSlots } from '../owner-slots.js';

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
  readonly #slots: OwnerSlots;

  constructor(readonly max: number = MAX_A2A_FOLLOWS_PER_OWNER) {
    this.#slots = new OwnerSlots(max);
  }

  /**
   * Takes one of `owner`'s slots and answers its release (idempotent), or throws
   * SUBSCRIPTION_LIMIT when the owner holds them all; nothing is changed then.
   */
  take(owner: OwnerId): () => void {
    const release = this.#slots.take(owner);
    if (release === null) {
      throw new DomainError(
        ErrorCode.SUBSCRIPTION_LIMIT,
        `Too many tasks followed at once (at most ${this.max}); close a stream first.`,
        { perOwner: this.max },
      );
    }
    return release;
  }

  /** Slots `owner` holds now (tests). */
  held(owner: OwnerId): number {
    return this.#slots.held(owner);
  }
}
