import type { OwnerId } from '@agent-teams/core';
import type { LiveOptions } from './live-options.js';

/** A running operation of a socket. */
export interface Operation {
  readonly id: string;
  readonly owner: OwnerId;
  cancelled: boolean;
  /** The subscription's source, once it started. */
  iterator: AsyncIterator<unknown> | null;
}

/**
 * The running operations of one socket, within the caps: at most `maxSubscriptionsPerSocket`
 * here and `maxSubscriptionsPerOwner` across the owner's sockets (`ownerCounts`, shared).
 */
export class OperationSlots {
  readonly #options: LiveOptions;
  readonly #ownerCounts: Map<OwnerId, number>;
  // Created at the first operation: most sockets hold one, and an idle socket should stay small.
  #running: Map<string, Operation> | null = null;

  constructor(options: LiveOptions, ownerCounts: Map<OwnerId, number>) {
    this.#options = options;
    this.#ownerCounts = ownerCounts;
  }

  /** Whether an operation with `id` is running (a reused id closes the socket with 4409). */
  has(id: string): boolean {
    return this.#running?.has(id) ?? false;
  }

  get(id: string): Operation | undefined {
    return this.#running?.get(id);
  }

  /** Reserves a slot for `id`; null when a cap is reached. */
  reserve(id: string, owner: OwnerId): Operation | null {
    this.#running ??= new Map();
    const ownerCount = this.#ownerCounts.get(owner) ?? 0;
    if (
      this.#running.size >= this.#options.maxSubscriptionsPerSocket ||
      ownerCount >= this.#options.maxSubscriptionsPerOwner
    ) {
      return null;
    }
    this.#ownerCounts.set(owner, ownerCount + 1);
    const operation: Operation = { id, owner, cancelled: false, iterator: null };
    this.#running.set(id, operation);
    return operation;
  }

  /** Ends an operation: stops its source and frees its slot (idempotent). */
  finish(operation: Operation): void {
    if (operation.cancelled) return;
    operation.cancelled = true;
    void operation.iterator?.return?.();
    if (this.#running?.get(operation.id) === operation) this.#running.delete(operation.id);
    const left = (this.#ownerCounts.get(operation.owner) ?? 1) - 1;
    if (left > 0) this.#ownerCounts.set(operation.owner, left);
    else this.#ownerCounts.delete(operation.owner);
  }

  /** Ends every operation (the socket closed). */
  finishAll(): void {
    for (const operation of [...(this.#running?.values() ?? [])]) this.finish(operation);
  }

  /** The `error` payload of a refused subscribe: which caps apply. */
  limitError(): { message: string; extensions: Record<string, unknown> } {
    return {
      message: 'Too many subscriptions.',
      extensions: {
        code: 'SUBSCRIPTION_LIMIT',
        perSocket: this.#options.maxSubscriptionsPerSocket,
        perOwner: this.#options.maxSubscriptionsPerOwner,
      },
    };
  }
}
