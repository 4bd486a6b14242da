import {
  type AgentRuntime,
  type InputRequest,
  type JobId,
  type PendingResponse,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
  type RuntimeFailureKind,
  type RuntimeNotice,
  type TurnInput,
} from '@agent-teams/core';

/** One run as the model runtime keeps it ("server side": it survives a scheduler crash). */
export interface ModelRun {
  readonly runKey: string;
  readonly runId: RunId;
  readonly jobId: JobId;
  state: RunState;
}

/**
 * A controllable {@link AgentRuntime} for the model-based test: every run starts `running` and
 * ends only when the test settles it (or it is cancelled). Idempotent by key like a real runtime;
 * failures are injected per call. It counts the runs it created per job, so the test can prove
 * that no turn was started twice under different keys.
 */
export class ModelRuntime implements AgentRuntime {
  readonly name = 'scripted';
  readonly runs = new Map<string, ModelRun>();
  readonly #byId = new Map<RunId, ModelRun>();
  readonly #listeners = new Set<(notice: RuntimeNotice) => void>();
  /** Failures the next calls throw, in order. */
  failures: RuntimeFailureKind[] = [];
  /** Every `start`/`resume` call, to count duplicates (they must return the same run). */
  calls = 0;

  async ensureConversation(): Promise<void> {
    this.#maybeFail();
  }

  async start(args: { runKey: string; input: TurnInput; context: RunContext }): Promise<{ runId: RunId }> {
    this.#maybeFail();
    this.calls += 1;
    return { runId: this.#create(args.runKey, args.context.jobId).runId };
  }

  async resume(args: {
    runKey: string;
    runId: RunId;
    response: PendingResponse;
    context: RunContext;
  }): Promise<{ runId: RunId }> {
    this.#maybeFail();
    this.calls += 1;
    const existing = this.runs.get(args.runKey);
    if (existing) return { runId: existing.runId };
    const waiting = this.#byId.get(args.runId);
    if (waiting?.state.state !== 'waiting' || waiting.state.input.requestId !== args.response.inputRequestId) {
      throw new RuntimeError('rejected', `run ${args.runId} does not wait for this answer`);
    }
    return { runId: this.#create(args.runKey, args.context.jobId).runId };
  }

  async poll(args: { runId: RunId }): Promise<RunState> {
    this.#maybeFail();
    return this.#byId.get(args.runId)?.state ?? { state: 'failed', error: `unknown run ${args.runId}` };
  }

  async cancel(args: { runId: RunId }): Promise<void> {
    this.#maybeFail();
    const run = this.#byId.get(args.runId);
    if (run?.state.state === 'running') this.settle(run, { state: 'cancelled' });
  }

  subscribe(listener: (notice: RuntimeNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Runs still running, oldest first. */
  running(): ModelRun[] {
    return [...this.runs.values()].filter((run) => run.state.state === 'running');
  }

  /** Runs created for a job. */
  runsOf(jobId: JobId): ModelRun[] {
    return [...this.runs.values()].filter((run) => run.jobId === jobId);
  }

  /** The run with this id. */
  byId(runId: RunId): ModelRun | undefined {
    return this.#byId.get(runId);
  }

  /** Ends a running run the way a real agent would, and notifies like a real runtime. */
  settle(run: ModelRun, state: RunState): void {
    if (run.state.state !== 'running') return;
    run.state = state;
    for (const listener of this.#listeners) listener({ type: 'settled', runId: run.runId });
  }

  /** The question a run asks when the test makes it wait. */
  static question(run: ModelRun, kind: InputRequest['kind']): InputRequest {
    return kind === 'CLARIFICATION'
      ? { kind, requestId: `q_${run.runKey}`, question: `Question of ${run.runKey}?` }
      : { kind, requestId: `q_${run.runKey}`, payload: { approve: run.runKey } };
  }

  #create(runKey: string, jobId: JobId): ModelRun {
    const existing = this.runs.get(runKey);
    if (existing) return existing;
    const run: ModelRun = { runKey, runId: `run_${runKey}` as RunId, jobId, state: { state: 'running' } };
    this.runs.set(runKey, run);
    this.#byId.set(run.runId, run);
    return run;
  }

  #maybeFail(): void {
    const kind = this.failures.shift();
    if (kind !== undefined) throw new RuntimeError(kind, `injected ${kind} failure`);
  }
}
