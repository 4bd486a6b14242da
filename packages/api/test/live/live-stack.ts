import { afterAll, beforeAll } from 'vitest';
import { createGraphqlStack, type GraphqlStack } from '../graphql/graphql-stack.js';
import { type ClientPool, openLivePool } from './live-clients.js';

/** What {@link useLiveStack} serves a test file: the stack, its HTTP origin, and live clients. */
export interface LiveStack {
  readonly stack: GraphqlStack;
  readonly base: string;
  readonly pool: ClientPool;
}

/**
 * A stack without a scheduler (jobs stay QUEUED), listening on loopback, with a pool of live
 * clients: opened before the file's tests, closed after them. Read its fields inside the tests.
 */
export function useLiveStack(): LiveStack {
  const live = {} as { stack: GraphqlStack; base: string; pool: ClientPool };
  beforeAll(async () => {
    live.stack = await createGraphqlStack({ scheduler: false });
    ({ pool: live.pool, url: live.base } = await openLivePool(live.stack.server));
  });
  afterAll(async () => {
    await live.pool.dispose();
    await live.stack.close();
  });
  return live;
}
