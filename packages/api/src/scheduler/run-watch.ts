import type { AgentRuntime, Job, RunId } from '@agent-teams/core';

/** How many run → job entries are remembered (the oldest are forgotten first). */
const RUN_INDEX_SIZE = 2_000;

/**
 * Routes the runtimes' `settled` notices to the job of the run: the scheduler tells it which job
 * each run belongs to, and it subscribes to each runtime once, the first time a job resolves to it.
 *
 * @remarks A notice for a run it does not know (started before a restart, or forgotten) still
 * matters: `onSettled(null)` then asks for a pass, which finds the job through the store.
 */
export class RunWatch {
  readonly #onSettled: (job: Job | null) => void;
  readonly #subscriptions = new Map<AgentRuntime, () => void>();
  readonly #runs = new Map<RunId, Job>();
  #stopped = false;

  constructor(onSettled: (job: Job | null) => void) {
    this.#onSettled = onSettled;
  }

  /** Listens to `runtime` (once). */
  watch(runtime: AgentRuntime): void {
    if (this.#stopped || this.#subscriptions.has(runtime)) return;
    this.#subscriptions.set(
      runtime,
      runtime.subscribe((notice) => {
        if (notice.type === 'settled') this.#onSettled(this.#runs.get(notice.runId) ?? null);
      }),
    );
  }

  /** Remembers that `runId` runs `job` (most recent last). */
  track(runId: RunId, job: Job): void {
    this.#runs.delete(runId);
    this.#runs.set(runId, job);
    if (this.#runs.size > RUN_INDEX_SIZE) this.#runs.delete(this.#runs.keys().next().value as RunId);
  }

  /** Unsubscribes from every runtime. */
  stop(): void {
    this.#stopped = true;
    for (const unsubscribe of this.#subscriptions.values()) unsubscribe();
    this.#subscriptions.clear();
  }
}
