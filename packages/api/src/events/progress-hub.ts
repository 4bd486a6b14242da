import type { JobId, Logger, RunProgress } from '@agent-teams/core';

/** One progress notice of a running job (not stored; feeds `jobProgress`). */
export interface JobProgressNotice {
  readonly jobId: JobId;
  /** Text the agent produced since the previous notice. */
  readonly textDelta?: string | null;
  /** Name of a tool the agent started calling. */
  readonly toolCall?: string | null;
}

/** Where `jobProgress` hears notices: register a listener, get back its unsubscribe. */
export type ProgressSource = (listener: (notice: JobProgressNotice) => void) => () => void;

/**
 * The server's progress notices: the runtimes of this server and, through the cluster, those of
 * the other servers publish; `jobProgress` subscriptions listen.
 */
export interface ProgressHub {
  /** Hands a notice to every listener; a failing listener is logged, never thrown. */
  publish(notice: JobProgressNotice): void;
  readonly listen: ProgressSource;
  /** How many listeners are registered (tests wait until a subscription is set up). */
  readonly listening: number;
}

/** Creates an empty hub; one per server. */
export function createProgressHub(logger: Logger): ProgressHub {
  const listeners = new Set<(notice: JobProgressNotice) => void>();
  return {
    publish(notice) {
      for (const listener of [...listeners]) {
        try {
          listener(notice);
        } catch (error) {
          logger.error('progress listener failed', { error });
        }
      }
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listening() {
      return listeners.size;
    },
  };
}

/** A runtime's progress as a notice (the run id stays inside the server). */
export function progressNotice(progress: RunProgress): JobProgressNotice {
  return progress.type === 'text'
    ? { jobId: progress.jobId, textDelta: progress.delta }
    : { jobId: progress.jobId, toolCall: progress.name };
}
