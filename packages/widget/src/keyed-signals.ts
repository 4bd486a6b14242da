import { createSignal, type Signal, untrack } from 'solid-js';

/** Reactive values by key: reading `get(key)` in a computation subscribes it to that key only. */
export interface KeyedSignals<T> {
  get(key: string): T | undefined;
  /** Reads the value without subscribing the current computation. */
  peek(key: string): T | undefined;
  /** Replaces the value; readers of this key (and no other) run again. */
  set(key: string, value: T): void;
}

/**
 * One Solid signal per key, made on first read or write.
 *
 * @remarks The feed used a Solid store with `reconcile`; that cost 1.8 KiB gzip of the bundle for
 * what the cards need: a change to one job wakes only that job's card. Cards are keyed by job id
 * and values are replaced whole, so a card keeps its DOM (open details, typed answers) and Solid
 * rewrites only the text nodes whose value changed. A read makes the signal too, so a card that
 * looks for its receipt before the receipt exists is woken when it arrives.
 */
export function createKeyedSignals<T>(): KeyedSignals<T> {
  const signals = new Map<string, Signal<T | undefined>>();
  const signal = (key: string) => {
    const found = signals.get(key);
    if (found) return found;
    const made = createSignal<T | undefined>();
    signals.set(key, made);
    return made;
  };
  return {
    get: (key) => signal(key)[0](),
    peek: (key) => untrack(signal(key)[0]),
    set: (key, value) => {
      // The function form stores `value` as is, even when T is itself a function.
      signal(key)[1](() => value);
    },
  };
}
