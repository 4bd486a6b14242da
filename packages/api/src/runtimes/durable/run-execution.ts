import type { Clock, Logger, RunContext, RunId } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database-types.js';
import type { RunRides } from '../../storage/run-rides.js';

/** What a durable runtime is built over. */
export interface DurableRuntimeDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Where a run's final write waits for the job write that records the run (`run-rides.ts`):
   * shared with the store. Absent: each run's end is committed alone.
   */
  readonly rides?: RunRides | null;
}

/** Progress a run reports while it works (text deltas, tool calls). */
export type ProgressEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool'; readonly name: string };

/** One execution of a run in this process, as the runtime's work sees it. */
export interface RunExecution<D> {
  readonly runId: RunId;
  readonly runKey: string;
  readonly document: D;
  readonly context: RunContext;
  /** Aborted by `cancel` and by `dispose`. */
  readonly signal: AbortSignal;
  /** Milliseconds since the run was created (a replay after a restart skips waits already done). */
  readonly creditMs: number;
  progress(event: ProgressEvent): void;
  /** True once `cancel` stopped this execution. */
  readonly cancelled: boolean;
  /** True when the process is going away and the run was not cancelled: record nothing, as a crash would. */
  readonly abandoned: boolean;
}
