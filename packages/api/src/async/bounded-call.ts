import { RuntimeError } from '@agent-teams/core';

/**
 * Bounds one runtime call to `timeoutMs`.
 *
 * @remarks A call past its bound is reported as a `transient` {@link RuntimeError}: runtime calls
 * are idempotent by key, so the scheduler retries later with the same key while the job keeps its
 * state and slot. The late call itself is not aborted (the port has no signal); its result, if
 * any, is found again by key.
 */
export async function boundedCall<T>(call: () => Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RuntimeError('transient', `${what} took longer than ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([call(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
