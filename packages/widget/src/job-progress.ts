import { onCleanup } from 'solid-js';
import { type Api, JOB_PROGRESS } from './api.js';
import { createKeyedSignals } from './keyed-signals.js';

/** What a running job has streamed so far: its text and the tools it called, in order. */
export interface ProgressView {
  readonly text: string;
  readonly tools: readonly string[];
}

/** Statuses in which a job may stream progress (subscribed from the queue on, so nothing early is missed). */
export const STREAMING = new Set(['QUEUED', 'RUNNING', 'RESUMING']);

/** Live progress of a team's jobs, shared by every view that shows it. */
export interface JobProgress {
  /** The progress of `jobId` since its subscription started (undefined before any). */
  get(jobId: string): ProgressView | undefined;
  /** Subscribes to `jobId` for as long as the calling computation lives. */
  watch(jobId: string): void;
}

interface Watched {
  count: number;
  /** Null while the socket is down; the subscription is made again when it is back. */
  stop: (() => void) | null;
}

/**
 * One `jobProgress` subscription per job, however many views watch it (a card and the
 * conversation view both show a running job). Must be called inside a Solid owner.
 *
 * @remarks Progress is not retained by the server, so a new subscription starts from nothing:
 * the value is reset when the first watcher arrives and kept after the last one leaves (the card
 * hides it once the job stops running). A dropped socket ends every subscription; they are made
 * again when the socket is back up (the team feed reopens it), not in a loop while it is down.
 */
export function createJobProgress(api: Api): JobProgress {
  const values = createKeyedSignals<ProgressView>();
  const watched = new Map<string, Watched>();
  const add = (jobId: string, change: (current: ProgressView) => ProgressView) =>
    values.set(jobId, change(values.peek(jobId) ?? { text: '', tools: [] }));

  const subscribe = (jobId: string, entry: Watched) => {
    entry.stop = api.live.subscribe(
      JOB_PROGRESS,
      { jobId },
      {
        next(data) {
          const { textDelta, toolCall } = data.jobProgress as { textDelta: string | null; toolCall: string | null };
          if (textDelta) add(jobId, (p) => ({ ...p, text: p.text + textDelta }));
          if (toolCall) add(jobId, (p) => ({ ...p, tools: [...p.tools, toolCall] }));
        },
        error({ dropped }) {
          if (dropped && watched.get(jobId) === entry) entry.stop = null;
        },
        // The job ended: the server completes the stream after the payload with its terminal
        // status. What streamed is kept, and `entry.stop` stays set, so a socket coming back up
        // does not subscribe again to a job that has nothing more to stream.
        complete: () => {},
      },
    );
  };

  onCleanup(
    api.live.onStatus((up) => {
      if (!up) return;
      for (const [jobId, entry] of watched) if (!entry.stop) subscribe(jobId, entry);
    }),
  );

  return {
    get: values.get,
    watch(jobId) {
      let entry = watched.get(jobId);
      if (!entry) {
        values.set(jobId, { text: '', tools: [] });
        entry = { count: 0, stop: null };
        watched.set(jobId, entry);
        subscribe(jobId, entry);
      }
      entry.count++;
      const held = entry;
      onCleanup(() => {
        if (--held.count > 0) return;
        held.stop?.();
        watched.delete(jobId);
      });
    },
  };
}
