import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields every log line written inside the current request or job step carries. */
export type LogFields = Readonly<Record<string, string>>;

const storage = new AsyncLocalStorage<LogFields>();

/**
 * Runs `work` with `fields` added to every log line it writes, also from callbacks and awaits it
 * starts (AsyncLocalStorage): the HTTP edge adds `requestId`, the job driver `jobId` and `teamId`.
 */
export function withLogFields<T>(fields: LogFields, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, work);
}

/** The fields of the current request or job step (empty outside one). */
export function logFields(): LogFields {
  return storage.getStore() ?? {};
}
