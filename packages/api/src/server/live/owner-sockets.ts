import type { OwnerId } from '@agent-teams/core';

/**
 * The authenticated sockets each owner holds open on this server, capped
 * (`LiveOptions.maxSocketsPerOwner`).
 *
 * @remarks Why: an owner's running operations were capped across its sockets, its sockets were
 * not, so one owner could open idle authenticated sockets until the process ran out of file
 * descriptors and no one else could connect. A socket counts from its `connection_ack` until it
 * closes; one refused at its init never counted.
 */
export class OwnerSockets {
  readonly #counts = new Map<OwnerId, number>();

  constructor(readonly max: number) {}

  /** Counts one more socket of `owner` and answers its release (idempotent), or null at the cap. */
  take(owner: OwnerId): (() => void) | null {
    const held = this.#counts.get(owner) ?? 0;
    if (held >= this.max) return null;
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

  /** Sockets `owner` holds now (tests, diagnostics). */
  of(owner: OwnerId): number {
    return this.#counts.get(owner) ?? 0;
  }
}
