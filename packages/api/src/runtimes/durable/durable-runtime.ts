import {
  type AgentRuntime,
  asRunId,
  type Clock,
  type JobId,
  type Logger,
  nowTimestamp,
  type ResumeRunArgs,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
  type RuntimeNotice,
  type StartRunArgs,
} from '@agent-teams/core';
import type { RideWrite, RunRides } from '../../storage/run-rides.js';
import { runWrite, type StoreContext } from '../../storage/write-transaction.js';
import type { DurableRuntimeDeps, RunExecution } from './run-execution.js';
import { RunNotices } from './run-notices.js';
import { RUN_STATE_LOST, type RunRow, RunTable, readDocument } from './run-table.js';

/** The longest `dispose` waits for the executions it stopped. */
export const DISPOSE_WAIT_MS = 5_000;

export type { DurableRuntimeDeps, ProgressEvent, RunExecution } from './run-execution.js';

/** One execution of a run in this process: its abort, whether a cancel asked for it, and its end. */
type Execution = { controller: AbortController; cancelled: boolean; ended?: Promise<void> };

/**
 * The skeleton every durable runtime shares (`scripted`, `openai`, `a2a`):
 * runs in `runtime_runs`, idempotent by key; calls for one key joined; one execution per run in
 * this process, resumed by `poll` after a restart; `cancel` aborting the execution in flight or,
 * with none, ending the stored run; `settled` notices and a bounded cache of ended runs. A run
 * whose stored document no longer reads ends failed with `STATE_LOST` instead (`run-table.ts`).
 *
 * @remarks A runtime supplies what differs: how a turn runs ({@link execute}, which records its
 * own outcome), how a waiting run continues ({@link resumeRun}), what a stopped run's state is
 * ({@link stoppedState}) and how a stored run no execution holds is cancelled ({@link cancelStored}).
 */
export abstract class DurableRuntime<D> implements AgentRuntime {
  abstract readonly name: string;
  protected readonly runs: RunTable<D>;
  protected readonly notices: RunNotices;
  protected readonly clock: Clock;
  protected readonly logger: Logger;
  readonly #executions = new Map<string, Execution>();
  readonly #rides: RunRides | null;
  #disposed = false;

  constructor(deps: DurableRuntimeDeps) {
    this.runs = new RunTable<D>(deps.db);
    this.notices = new RunNotices(deps.logger);
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.#rides = deps.rides ?? null;
  }

  /** Conversations live in the store (the runtime keeps the history itself): nothing to create by default. */
  async ensureConversation(_args: Parameters<AgentRuntime['ensureConversation']>[0]): Promise<void> {}

  abstract start(args: StartRunArgs): Promise<{ runId: RunId }>;

  /**
   * Continues the waiting run with the answer ({@link resumeRun}). A run whose document no longer
   * reads cannot continue: it is answered as it is, its {@link RUN_STATE_LOST} remembered over any
   * state cached before, so its poll ends it (a refusal would fail the job as a rejection).
   */
  resume(args: ResumeRunArgs): Promise<{ runId: RunId }> {
    return this.once(args, async () => {
      const waiting = await this.runs.findById(args.runId);
      const asked = waiting === null ? null : readDocument<D>(waiting);
      if (waiting === null || asked !== null) return this.resumeRun(args, asked);
      this.notices.remember(args.runId, RUN_STATE_LOST);
      return { runId: args.runId };
    });
  }

  async poll(args: { runId: RunId; context: RunContext }): Promise<RunState> {
    const ended = this.notices.ended(args.runId) ?? this.#rides?.stateOf(args.runId);
    if (ended) return ended;
    if (this.isHeld(args.runId)) return { state: 'running' };
    const row = await this.runs.findById(args.runId);
    if (!row) return { state: 'failed', error: `unknown run ${args.runId}` };
    if (row.state === 'running') {
      return this.#resume(row, args.context) ? { state: 'running' } : this.notices.remember(args.runId, RUN_STATE_LOST);
    }
    const document = readDocument<D>(row);
    return this.notices.remember(args.runId, document ? await this.stoppedState(row, document) : RUN_STATE_LOST);
  }

  async cancel(args: { runId: RunId; context: RunContext }): Promise<void> {
    const execution = this.#executions.get(args.runId);
    if (execution) {
      execution.cancelled = true;
      execution.controller.abort();
      return;
    }
    const row = await this.runs.findById(args.runId);
    if (!row) return;
    const document = readDocument<D>(row);
    if (document !== null) return this.cancelStored(row, document, args.context);
    // No document to end it with: ended here, its row left (a poll elsewhere finds it lost).
    if (row.state === 'running' || row.state === 'blocked') this.settle(args.runId, { state: 'cancelled' });
  }

  subscribe(listener: (notice: RuntimeNotice) => void): () => void {
    return this.notices.subscribe(listener);
  }

  /**
   * Stops every execution without recording an outcome, as a crash would (shutdown, tests);
   * resolves once they have stopped, or after {@link DISPOSE_WAIT_MS} (an execution blocked in a
   * member tool call is abandoned: its run is replayed from its last step after the restart).
   */
  async dispose(): Promise<void> {
    this.#disposed = true;
    // Ended runs whose final write waits for a job write: committed now, as they would have been.
    await this.#rides?.flush();
    const executions = [...this.#executions.values()];
    for (const execution of executions) execution.controller.abort();
    this.notices.clear();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DISPOSE_WAIT_MS).unref();
    });
    await Promise.race([Promise.all(executions.map((execution) => execution.ended)), waited]);
    clearTimeout(timer);
  }

  /**
   * True for a run begun in this process and not written yet (its execution is going): a runtime
   * that writes a new run with its first step says so here (none by default).
   */
  protected isHeld(_runId: string): boolean {
    return false;
  }

  /** Runs the turn of one execution and records its outcome (conditionally: once per run). */
  protected abstract execute(run: RunExecution<D>): Promise<void>;

  /**
   * Continues a waiting run with a person's answer or a wait's wake-up; `asked` is the run's
   * document, null when there is no such run. Throws `RuntimeError('rejected')` for a run that
   * does not wait for this answer.
   */
  protected abstract resumeRun(args: ResumeRunArgs, asked: D | null): Promise<{ runId: RunId }>;

  /** The state of a run that is not `running` (may throw a `RuntimeError` the scheduler handles). */
  protected abstract stoppedState(row: RunRow, document: D): Promise<RunState> | RunState;

  /** Cancels a stored run no execution of this process holds (ended runs are left as they are). */
  protected abstract cancelStored(row: RunRow, document: D, context: RunContext): Promise<void>;

  /**
   * Joins concurrent calls for one key, so a retried call never starts a turn twice; a key that
   * already has a run answers it (and resumes its execution if it still runs).
   *
   * With `firstCall` (`StartRunArgs.firstCall`: no call with this key was made before, and no
   * other server can have claimed the job) no run can exist under the key, so it is not looked up
   * (one read less per turn). The run's insert stays conditional all the same: a duplicate writes
   * no second run or conversation turn, as when two calls both find no run.
   */
  protected once(
    args: { readonly runKey: string; readonly context: RunContext; readonly firstCall?: boolean },
    call: () => Promise<{ runId: RunId }>,
  ): Promise<{ runId: RunId }> {
    const { runKey, context } = args;
    return this.notices.once(runKey, async () => {
      // Launched here and still going (or held), or ended here: that run, without a read (the
      // scheduler starts a run again with its key after the acknowledgement grace).
      const known = this.notices.launched(runKey);
      if (known !== undefined && (this.#executions.has(known) || this.isHeld(known) || this.#endedHere(known))) {
        return { runId: known };
      }
      if (args.firstCall === true) return call();
      const existing = await this.runs.findByKey(runKey);
      if (!existing) return call();
      if (existing.state === 'running') this.#resume(existing, context);
      return { runId: asRunId(existing.run_id) };
    });
  }

  /** Starts an execution of a run in the background (unless this process already runs it). */
  protected launch(runId: RunId, runKey: string, document: D, context: RunContext, creditMs = 0): void {
    if (this.#disposed || this.#executions.has(runId)) return;
    this.notices.rememberLaunched(runKey, runId);
    const execution: Execution = { controller: new AbortController(), cancelled: false };
    this.#executions.set(runId, execution);
    const disposed = () => this.#disposed;
    const run: RunExecution<D> = {
      runId,
      runKey,
      document,
      context,
      signal: execution.controller.signal,
      creditMs,
      progress: this.notices.progress(runId, context.jobId),
      get cancelled() {
        return execution.cancelled;
      },
      get abandoned() {
        return disposed() && !execution.cancelled;
      },
    };
    execution.ended = this.execute(run)
      .catch((error: unknown) => {
        const fields = { runId, jobId: context.jobId, error: String(error) };
        this.logger.error(`${this.name} run could not record its outcome`, fields);
      })
      .finally(() => this.#executions.delete(runId));
  }

  /**
   * Parks a run whose credentials were refused (a provider's 401/403, an unset key variable):
   * `blocked`, with `blocked` as its document; the next poll reports it ({@link reportBlocked}).
   */
  protected async park(runId: RunId, jobId: JobId, blocked: D, reason: string): Promise<void> {
    this.logger.warn(`${this.name} run refused access; it waits for reconnectTeam`, { runId, jobId, reason });
    if (await this.runs.transition(runId, 'running', 'blocked', blocked, this.now())) {
      this.notices.emit({ type: 'settled', runId });
    }
  }

  /**
   * What `poll` answers for a parked run, once: the run is `running` again (its `blocked` reason
   * cleared, so after `reconnectTeam` the next poll resumes it) and the refusal is thrown as
   * `RuntimeError('access')` (the reason, else `fallback`), which disconnects the team.
   */
  protected async reportBlocked(
    this: DurableRuntime<D & { readonly blocked: string | null }>,
    row: RunRow,
    doc: D & { readonly blocked: string | null },
    fallback: string,
  ): Promise<never> {
    await this.runs.transition(row.run_id, 'blocked', 'running', { ...doc, blocked: null }, this.now());
    throw new RuntimeError('access', doc.blocked ?? fallback);
  }

  /**
   * Ends a run with `write` (its row's conditional move to its end, or its insert already ended,
   * and what goes with it) and announces `state` once that can be reported: with rides, at once,
   * the write then committed by the job write that records the run (decision 0221); without,
   * after the write committed alone. A lost race (another execution ended the run) announces
   * nothing; with rides the announcement is taken back and `onLost` called (so too when the offered
   * write is dropped after failing), and a poll reads the stored outcome.
   * @returns whether the write took effect (with rides: true, the write offered).
   */
  protected async endRun(
    ctx: StoreContext,
    ended: { readonly runKey: string; readonly runId: RunId; readonly state: RunState },
    write: RideWrite,
    onLost: () => void = () => undefined,
  ): Promise<boolean> {
    const { runKey, runId, state } = ended;
    // A cancelled run's job may have ended already (a deadline): no job write may come to carry it.
    if (this.#rides === null || state.state === 'cancelled') {
      const now = this.now();
      const wrote = await runWrite(ctx, now, ({ trx }) => write(trx, now));
      if (wrote) this.settle(runId, state);
      return wrote;
    }
    this.notices.rememberLaunched(runKey, runId);
    // Committed by the job write that records the run (the scheduler's step the notice asks
    // for), or alone after the wait: nobody waits for it here, since that step may be the caller.
    // Voided (lost to another execution, or its write dropped): the announcement is taken back.
    void this.#rides.offer(runId, state, write, () => {
      this.notices.forget(runId);
      onLost();
    });
    this.settle(runId, state);
    return true;
  }

  /** Announces that a run ended (`settled` wakes the scheduler, which then polls). */
  protected settle(runId: RunId, state: RunState): void {
    this.notices.remember(runId, state);
    this.notices.emit({ type: 'settled', runId });
  }

  protected now(): string {
    return nowTimestamp(this.clock);
  }

  /** The run ended in this process: its outcome is cached, or its final write waits for its job write. */
  #endedHere(runId: RunId): boolean {
    return this.notices.ended(runId) !== undefined || this.#rides?.stateOf(runId) !== undefined;
  }

  /** Resumes the execution of a stored `running` run (a restart); false when its document is lost. */
  #resume(row: RunRow, context: RunContext): boolean {
    // Run by this process already: its execution holds the document, whatever the row holds now.
    if (this.#executions.has(row.run_id)) return true;
    const document = readDocument<D>(row);
    if (document === null) return false;
    const creditMs = Math.max(0, this.clock.nowMs() - Date.parse(row.created_at));
    this.launch(asRunId(row.run_id), row.run_key, document, context, creditMs);
    return true;
  }
}
