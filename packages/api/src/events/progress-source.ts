import type { JobId } from '@agent-teams/core';

/** One progress notice of a running job (not stored; feeds `jobProgress`). */
export interface JobProgressNotice {
  readonly jobId: JobId;
  /** Text the agent produced since the previous notice. */
  readonly textDelta?: string | null;
  /** Name of a tool the agent started calling. */
  readonly toolCall?: string | null;
}

/**
 * Where the server hears runtime progress: register a listener, get back its unsubscribe.
 * The composition root adapts the runtimes' `progress` notices (run id → job id) to this.
 */
export type ProgressSource = (listener: (notice: JobProgressNotice) => void) => () => void;
