import {
  type AgentRuntime,
  asRunId,
  type Clock,
  type ConversationLog,
  type Logger,
  nowTimestamp,
  type PendingResponse,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
  type RuntimeNotice,
  type TurnInput,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database-types.js';
import { RunNotices } from '../run-notices.js';
import { abortableSleep } from './abortable-sleep.js';
import { needsBackground, parseDirectives } from './parse-directives.js';
import { type RunRow, RunRows, readDocument } from './run-rows.js';
import { runScript, type ScriptOutcome, type ScriptResult, type ScriptTurn } from './run-script.js';

/** What {@link ScriptedRuntime} is built from. */
export interface ScriptedRuntimeDeps {
  readonly db: Kysely<Database>;
  /** Where each turn's messages go (once per run). */
  readonly store: Pick<ConversationLog, 'appendConversation'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Pause between two `!stream` deltas; default 20 ms. */
  readonly streamIntervalMs?: number;
}

interface Execution {
  readonly controller: AbortController;
  cancelled: boolean;
}

/**
 * The deterministic `scripted` agent runtime (contract: "The `scripted` runtime").
 *
 * @remarks Runs are durable in `runtime_runs` and idempotent by key: the run id is derived from
 * the key, a second start answers the existing run, and a row left `running` by a stopped
 * process is replayed on `poll` (waits skip the time already spent). A turn without `!sleep` or
 * `!stream` is computed inside `start` and inserted already finished: one write per instant turn,
 * which the engine throughput benchmark relies on. Conversation messages are appended only by
 * the call whose row write took effect, so never twice for one run.
 */
export class ScriptedRuntime implements AgentRuntime {
  readonly name = 'scripted';
  readonly #deps: ScriptedRuntimeDeps;
  readonly #rows: RunRows;
  readonly #executions = new Map<string, Execution>();
  readonly #notices: RunNotices;
  #disposed = false;

  constructor(deps: ScriptedRuntimeDeps) {
    this.#deps = deps;
    this.#notices = new RunNotices(deps.logger);
    this.#rows = new RunRows(deps.db);
  }

  /** Scripted conversations live only in the store: nothing to create. */
  async ensureConversation(): Promise<void> {}

  start(args: { runKey: string; input: TurnInput; context: RunContext }): Promise<{ runId: RunId }> {
    return this.#once(args.runKey, args.context, () => this.#begin(args.runKey, turnOf(args.input), args.context));
  }

  resume(args: {
    runKey: string;
    runId: RunId;
    response: PendingResponse;
    context: RunContext;
  }): Promise<{ runId: RunId }> {
    return this.#once(args.runKey, args.context, async () => {
      const waiting = await this.#rows.findById(args.runId);
      const outcome = waiting ? readDocument(waiting).outcome : null;
      if (!waiting || outcome?.state !== 'waiting') {
        throw new RuntimeError('rejected', `run ${args.runId} is not waiting for input`);
      }
      if (outcome.input.requestId !== args.response.inputRequestId) {
        throw new RuntimeError('rejected', `run ${args.runId} waits for another input`);
      }
      return this.#begin(args.runKey, answerTurn(readDocument(waiting).turn, args.response), args.context);
    });
  }

  async poll(args: { runId: RunId; context: RunContext }): Promise<RunState> {
    const ended = this.#notices.ended(args.runId);
    if (ended) return ended;
    const row = await this.#rows.findById(args.runId);
    if (!row) return { state: 'failed', error: `unknown run ${args.runId}` };
    if (row.state === 'running') {
      this.#ensureExecuting(row, args.context);
      return { state: 'running' };
    }
    return this.#notices.remember(
      args.runId,
      readDocument(row).outcome ?? { state: 'failed', error: 'run has no outcome' },
    );
  }

  async cancel(args: { runId: RunId; context: RunContext }): Promise<void> {
    const execution = this.#executions.get(args.runId);
    if (execution) {
      execution.cancelled = true;
      execution.controller.abort();
      return;
    }
    const row = await this.#rows.findById(args.runId);
    if (row?.state !== 'running') return;
    const { turn } = readDocument(row);
    const outcome: ScriptOutcome = { state: 'cancelled' };
    if (await this.#rows.finish(args.runId, turn, outcome, this.#now())) {
      const messages = [{ role: 'USER' as const, text: turn.text, toolName: null, jobId: args.context.jobId }];
      await this.#settle(args.runId, { outcome, messages }, args.context);
    }
  }

  subscribe(listener: (notice: RuntimeNotice) => void): () => void {
    return this.#notices.subscribe(listener);
  }

  /** Stops every execution without recording an outcome, as a crash would (tests, shutdown). */
  dispose(): void {
    this.#disposed = true;
    for (const execution of this.#executions.values()) execution.controller.abort();
    this.#notices.clear();
  }

  /** Joins concurrent calls for one key, so a retried call never runs a turn twice. */
  #once(runKey: string, context: RunContext, call: () => Promise<{ runId: RunId }>): Promise<{ runId: RunId }> {
    return this.#notices.once(runKey, async () => {
      const existing = await this.#rows.findByKey(runKey);
      if (!existing) return call();
      if (existing.state === 'running') this.#ensureExecuting(existing, context);
      return { runId: asRunId(existing.run_id) };
    });
  }

  async #begin(runKey: string, turn: ScriptTurn, context: RunContext): Promise<{ runId: RunId }> {
    const runId = asRunId(`run_${runKey}`);
    const base = {
      runKey,
      runId,
      runtime: this.name,
      conversationId: context.conversationId,
      jobId: context.jobId,
      turn,
      now: this.#now(),
    };
    if (!needsBackground(parseDirectives(turn.text))) {
      const result = await runScript(turn, this.#env(runId, runKey, context, new AbortController().signal, 0));
      if (await this.#rows.insert({ ...base, outcome: result.outcome })) await this.#settle(runId, result, context);
      return { runId };
    }
    if (await this.#rows.insert({ ...base, outcome: null })) this.#execute(runId, runKey, turn, context, 0);
    return { runId };
  }

  #ensureExecuting(row: RunRow, context: RunContext): void {
    if (this.#disposed || this.#executions.has(row.run_id)) return;
    const credit = Math.max(0, this.#deps.clock.nowMs() - Date.parse(row.created_at));
    this.#execute(asRunId(row.run_id), row.run_key, readDocument(row).turn, context, credit);
  }

  #execute(runId: RunId, runKey: string, turn: ScriptTurn, context: RunContext, creditMs: number): void {
    const execution: Execution = { controller: new AbortController(), cancelled: false };
    this.#executions.set(runId, execution);
    void (async () => {
      let result: ScriptResult;
      try {
        result = await runScript(turn, this.#env(runId, runKey, context, execution.controller.signal, creditMs));
      } catch (error) {
        this.#deps.logger.error('scripted run failed unexpectedly', {
          runId,
          jobId: context.jobId,
          error: String(error),
        });
        result = { outcome: { state: 'failed', error: 'scripted run failed unexpectedly' }, messages: [] };
      }
      if (this.#disposed && !execution.cancelled) return;
      if (await this.#rows.finish(runId, turn, result.outcome, this.#now())) await this.#settle(runId, result, context);
    })()
      .catch((error: unknown) => {
        this.#deps.logger.error('scripted run could not record its outcome', { runId, error: String(error) });
      })
      .finally(() => this.#executions.delete(runId));
  }

  #env(runId: RunId, runKey: string, context: RunContext, signal: AbortSignal, creditMs: number) {
    return {
      runKey,
      jobId: context.jobId,
      tools: context.tools,
      signal,
      sleep: abortableSleep,
      creditMs,
      streamIntervalMs: this.#deps.streamIntervalMs ?? 20,
      progress: (event: { type: 'text'; delta: string } | { type: 'tool'; name: string }) =>
        this.#notices.emit({
          type: 'progress',
          progress:
            event.type === 'text'
              ? { type: 'text', runId, jobId: context.jobId, delta: event.delta }
              : { type: 'tool', runId, jobId: context.jobId, name: event.name },
        }),
    };
  }

  async #settle(runId: RunId, result: ScriptResult, context: RunContext): Promise<void> {
    this.#notices.remember(runId, result.outcome);
    try {
      await this.#deps.store.appendConversation(context.conversationId, result.messages, this.#now());
    } catch (error) {
      this.#deps.logger.error('scripted run could not append its conversation', { runId, error: String(error) });
    }
    this.#notices.emit({ type: 'settled', runId });
  }

  #now(): string {
    return nowTimestamp(this.#deps.clock);
  }
}

function turnOf(input: TurnInput): ScriptTurn {
  const receipt = input.receipt ? { fromMemberName: input.receipt.fromMemberName, result: input.receipt.result } : null;
  return { kind: input.kind, text: input.text, memberName: input.memberName, receipt, answer: null };
}

function answerTurn(asked: ScriptTurn, response: PendingResponse): ScriptTurn {
  const text = typeof response.value === 'string' ? response.value : (JSON.stringify(response.value) ?? 'null');
  return {
    kind: 'answer',
    text,
    memberName: asked.memberName,
    receipt: null,
    answer: { kind: response.kind, value: response.value },
    humanText: response.message ?? null,
  };
}
