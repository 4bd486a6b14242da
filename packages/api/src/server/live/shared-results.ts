/**
 * Operations that share results: subscribers whose (document, operation name, variables,
 * authorization scope) are equal receive the same serialized result for the same source event.
 *
 * @remarks graphql-js executes a subscription's selection once per source event per subscriber
 * (`execute` with the event as root value). A source that hands the same event object to many
 * subscribers (the team feeds do) lets a group execute and `JSON.stringify` it once: the result
 * is cached by the event object's identity in a WeakMap, so it is freed with the event. Events
 * that are not shared objects still work, just without sharing.
 */
export class SharedResults {
  readonly #groups = new Map<string, ResultGroup>();

  /** Joins (or creates) the group of `key`; call {@link ResultGroup.release} when done. */
  join(key: string): ResultGroup {
    let group = this.#groups.get(key);
    if (!group) {
      group = new ResultGroup(() => this.#groups.delete(key));
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
  readonly #results = new WeakMap<object, Promise<string>>();
  readonly #onEmpty: () => void;

  constructor(onEmpty: () => void) {
    this.#onEmpty = onEmpty;
  }

  /** The serialized result for `event`: computed by the first member that asks, then shared. */
  result(event: unknown, compute: () => Promise<string>): Promise<string> {
    if (typeof event !== 'object' || event === null) return compute();
    let result = this.#results.get(event);
    if (!result) {
      result = compute();
      this.#results.set(event, result);
    }
    return result;
  }

  release(): void {
    this.members -= 1;
    if (this.members === 0) this.#onEmpty();
  }
}
