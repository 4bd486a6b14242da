/** A serialized result: the bytes, or their promise while an asynchronous resolver runs. */
export type SharedPayload = Buffer | Promise<Buffer>;

/**
 * Operations that share results: subscribers whose (document, operation name, variables,
 * authorization scope) are equal receive the same serialized result for the same source event.
 *
 * @remarks graphql-js executes a subscription's selection once per source event per subscriber
 * (`execute` with the event as root value). A source that hands the same event object to many
 * subscribers (the team feeds do) lets a group execute and serialize it once: the result is
 * cached by the event object's identity in a WeakMap, so it is freed with the event. Events that
 * are not shared objects still work, just without sharing.
 */
export class SharedResults {
  readonly #groups = new Map<string, ResultGroup>();

  /**
   * Joins (or creates) the group of `key`; call {@link ResultGroup.release} when done.
   * `compute` is asked only when the group is created: every member of a group resolves an
   * event to the same result by construction of the key, so the first member's way stands for all.
   */
  join(key: string, compute: () => (event: unknown) => SharedPayload): ResultGroup {
    let group = this.#groups.get(key);
    if (!group) {
      group = new ResultGroup(compute(), () => this.#groups.delete(key));
      this.#groups.set(key, group);
    }
    group.members += 1;
    return group;
  }

  /** Number of live groups (tests, metrics). */
  get size(): number {
    return this.#groups.size;
  }
}

/** The subscribers sharing one (document, variables, scope). */
export class ResultGroup {
  members = 0;
  readonly #results = new WeakMap<object, SharedPayload>();
  readonly #compute: (event: unknown) => SharedPayload;
  readonly #onEmpty: () => void;

  constructor(compute: (event: unknown) => SharedPayload, onEmpty: () => void) {
    this.#compute = compute;
    this.#onEmpty = onEmpty;
  }

  /**
   * The serialized result for `event`: computed by the first member that asks, then shared.
   *
   * @remarks A result that resolved synchronously (every resolver of the selection is), or whose
   * promise has settled, is returned as bytes, so the other members write it without awaiting.
   */
  result(event: unknown): SharedPayload {
    if (typeof event !== 'object' || event === null) return this.#compute(event);
    const cached = this.#results.get(event);
    if (cached !== undefined) return cached;
    const computed = this.#compute(event);
    this.#results.set(event, computed);
    if (computed instanceof Promise) {
      computed.then(
        (bytes) => {
          if (this.#results.get(event) === computed) this.#results.set(event, bytes);
        },
        // The members awaiting `computed` receive the rejection; nothing to do here.
        () => {},
      );
    }
    return computed;
  }

  release(): void {
    this.members -= 1;
    if (this.members === 0) this.#onEmpty();
  }
}
