import { currentFrame, runInFrame } from './async-frame.js';

/** Fields every log line written inside the current request or job step carries. */
export type LogFields = Readonly<Record<string, string>>;

/**
 * Runs `work` with `fields` added to every log line it writes, also from callbacks and awaits it
 * starts (the shared async frame, `async-frame.ts`): the HTTP edge adds `requestId`, the job
 * driver `jobId` and `teamId`.
 */
export function withLogFields<T>(fields: LogFields, work: () => T): T {
  const frame = currentFrame();
  return runInFrame({ logFields: { ...frame.logFields, ...fields }, ownWrite: frame.ownWrite }, work);
}

/** The fields of the current request or job step (empty outside one). */
export function logFields(): LogFields {
  return currentFrame().logFields;
}
