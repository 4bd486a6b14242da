import type { OwnerId } from '@agent-teams/core';
import type { Authenticator, Credential } from '../../auth/authenticator.js';

/** The longest delay `setTimeout` takes (2³¹−1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Who one socket acts for and until when: the credential its `connection_init` named, checked
 * again synchronously at every delivery and keep-alive tick, and a timer at its expiry.
 *
 * @remarks Only sockets with an expiring credential (a host-signed token) hold a timer; it fires
 * at the expiry (re-armed in steps when that is beyond `setTimeout`'s range) and calls
 * `onExpiry`, so a socket closes when its token runs out even when nothing is delivered.
 */
export class SocketAuthority {
  readonly #auth: Authenticator;
  readonly #onExpiry: () => void;
  #authorization: string | null = null;
  #credential: Credential | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ended = false;

  constructor(auth: Authenticator, onExpiry: () => void) {
    this.#auth = auth;
    this.#onExpiry = onExpiry;
  }

  /** The owner once granted; null before, and when refused. */
  get owner(): OwnerId | null {
    return this.#credential?.owner ?? null;
  }

  /** Authenticates the `connection_init` value; resolves with the owner, or null when refused. */
  async grant(authorization: string | null): Promise<OwnerId | null> {
    this.#authorization = authorization;
    const credential = await this.#auth.authenticate(authorization);
    // Refused, ended while verifying (the socket closed), or already past its expiry.
    if (credential === null || this.#ended || !this.#auth.stillValid(authorization, credential)) return null;
    this.#credential = credential;
    this.#arm();
    return credential.owner;
  }

  /** Whether the socket may still act for its owner (a clock compared, no signature checked). */
  valid(): boolean {
    return this.#credential !== null && this.#auth.stillValid(this.#authorization, this.#credential);
  }

  /** Forgets the timer; nothing is granted after it. */
  end(): void {
    this.#ended = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(): void {
    const left = this.#credential === null ? null : this.#auth.msLeft(this.#credential);
    if (left === null || this.#ended) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        if (this.valid()) this.#arm();
        else this.#onExpiry();
      },
      Math.min(Math.max(left, 0), MAX_TIMER_MS),
    );
  }
}
