import type { OwnerId } from '@agent-teams/core';

/**
 * Places each owner holds at once on this server, at most `max` per owner: its authenticated
 * live sockets (`LiveOptions.maxSocketsPerOwner`) and the A2A tasks it follows
 * (`MAX_A2A_FOLLOWS_PER_OWNER`).
 *
 * @remarks Why: each such place holds a connection, a file descriptor and a cursor, and without a
 * cap one owner could take them all (3,000 A2A streams; idle sockets up to the process's file
 * limit), so no one else could connect. A place counts from when it is taken until its release.
 */
export class OwnerSlots {
  readonly #counts = new Map<OwnerId, number>();

  constructor(readonly max: number) {}

  /** Takes one of `owner`'s places and answers its release (idempotent), or null at the cap. */
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

  /** Places `owner` holds now (tests, diagnostics). */
  held(owner: OwnerId): number {
    return this.#counts.get(owner) ?? 0;
  }
}
