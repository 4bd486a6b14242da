import type { JobId, Logger, RunProgress } from '@agent-teams/core';

/** One progress notice of a running job (not stored; feeds `jobProgress`). */
export interface JobProgressNotice {
  readonly jobId: JobId;
  /** Text the agent produced since the previous notice. */
  readonly textDelta?: string | null;
  /** Name of a tool the agent started calling. */
  readonly toolCall?: string | null;
}

/**
 * Where `jobProgress` hears notices: register a listener, get back its unsubscribe. With `jobId`
 * the listener hears only that job's notices (a listener must still check: a source may ignore it).
 */
export type ProgressSource = (listener: (notice: JobProgressNotice) => void, jobId?: JobId) => () => void;

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

type Listener = (notice: JobProgressNotice) => void;

/**
 * Creates an empty hub; one per server.
 *
 * @remarks Listeners of one job are kept by job id, so a notice costs its own job's listeners,
 * not every `jobProgress` subscription of the server (10,000 idle ones must not slow a stream).
 */
export function createProgressHub(logger: Logger): ProgressHub {
  const everything = new Set<Listener>();
  const byJob = new Map<JobId, Set<Listener>>();
  let listening = 0;
  const deliver = (listeners: ReadonlySet<Listener> | undefined, notice: JobProgressNotice) => {
    if (listeners === undefined || listeners.size === 0) return;
    // A copy: a listener may unsubscribe (itself or another) while the notice is handed out.
    for (const listener of [...listeners]) {
      try {
        listener(notice);
      } catch (error) {
        logger.error('progress listener failed', { error });
      }
    }
  };
  return {
    publish(notice) {
      deliver(everything, notice);
      deliver(byJob.get(notice.jobId), notice);
    },
    listen(listener, jobId) {
      let set = everything;
      if (jobId !== undefined) {
        set = byJob.get(jobId) ?? new Set();
        byJob.set(jobId, set);
      }
      if (!set.has(listener)) {
        set.add(listener);
        listening += 1;
      }
      return () => {
        if (!set.delete(listener)) return;
        listening -= 1;
        if (jobId !== undefined && set.size === 0 && byJob.get(jobId) === set) byJob.delete(jobId);
      };
    },
    get listening() {
      return listening;
    },
  };
}

/** A runtime's progress as a notice (the run id stays inside the server). */
export function progressNotice(progress: RunProgress): JobProgressNotice {
  return progress.type === 'text'
    ? { jobId: progress.jobId, textDelta: progress.delta }
    : { jobId: progress.jobId, toolCall: progress.name };
}
