// Shared by scheduler-model-world.ts and scheduler-model.test.ts: the steps the model draws and the faults it injects.
import type { TeamStore } from '@agent-teams/core';
import fc from 'fast-check';

/** One step of a sequence: a person's call, a runtime outcome, or a fault (crash, race, failures, clock jump). */
export type Action =
  | { t: 'send'; member: number; twice: boolean }
  | { t: 'settle'; pick: number; outcome: 'complete' | 'ask' | 'interrupt' | 'fail' }
  | { t: 'respond'; pick: number; valid: boolean; reuseKey: boolean; stale: boolean }
  | { t: 'cancel'; pick: number; twice: boolean }
  | { t: 'crash' }
  | { t: 'race' }
  | { t: 'dbfail'; n: number }
  | { t: 'rtfail'; kind: 'transient' | 'ambiguous' | 'rejected' }
  | { t: 'reconnect' }
  | { t: 'clock'; ms: number };

/** The steps of a sequence, weighted: mostly requests, outcomes and answers, now and then a fault. */
export const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('send' as const), member: fc.nat(11), twice: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('settle' as const),
      pick: fc.nat(20),
      outcome: fc.constantFrom('complete' as const, 'ask' as const, 'interrupt' as const, 'fail' as const),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('respond' as const),
      pick: fc.nat(20),
      valid: fc.boolean(),
      reuseKey: fc.boolean(),
      stale: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('cancel' as const), pick: fc.nat(40), twice: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('crash' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('race' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('dbfail' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('rtfail' as const),
      kind: fc.constantFrom('transient' as const, 'ambiguous' as const, 'rejected' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reconnect' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('clock' as const), ms: fc.integer({ min: 0, max: 200_000 }) }) },
);

/** The message of every injected database failure. */
export const INJECTED = 'injected database failure';

/** A store whose next `failing` writes throw, as a database that went away would. */
export function failingStore(store: TeamStore, failing: { n: number }): TeamStore {
  const writes = new Set(['updateJob', 'admit', 'setTeamStatus']);
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (writes.has(String(property))) {
        return (...args: unknown[]) => {
          if (failing.n > 0) {
            failing.n -= 1;
            return Promise.reject(new Error(INJECTED));
          }
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}
