import {
  type AgentRuntime,
  asRunId,
  type Clock,
  type ConversationId,
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
import { abortableSleep } from '../scripted/abortable-sleep.js';
import { type A2aRunDoc, type A2aRunRow, A2aRunStore, a2aRunDoc, settled, stateOf } from './a2a-run-store.js';
import { RemoteCallError } from './remote-agent.js';
import { RemoteAgents } from './remote-agents.js';
import { runRemoteTurn, type TurnEnd } from './remote-turn.js';
import { turnMetadata, turnText } from './turn-text.js';

/** What {@link A2aRuntime} is built from. */
export interface A2aRuntimeDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where `apiKeyEnv` names are looked up (the process environment in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The MCP URL remote agents call their team tools at (asked when a message is about to go out). */
  readonly mcpUrl: () => Promise<string | null>;
  /** First retry delay after a connection failure, 429 or 5xx (default 500 ms; doubled per attempt). */
  readonly retryBaseMs?: number;
  /** How often a task that cannot be streamed is read again (default {@link A2A_POLL_MS}). */
  readonly pollMs?: number;
}

/** Default interval between two reads of a remote task that is not streamed (ms). */
export const A2A_POLL_MS = 1_000;

interface Execution {
  readonly controller: AbortController;
  cancelled: boolean;
}

/**
 * The `a2a` agent runtime: a member whose agent runs elsewhere and speaks A2A (protocol 1.0),
 * driven through the official SDK's client.
 *
 * @remarks Durable and idempotent by run key like the other runtimes: `start` persists the turn
 * (its message id derives from the key) and returns at once; the turn runs in the background
 * (`remote-turn.ts`). Each member conversation is one A2A context. The remote task's id is
 * persisted as soon as the agent names it, so a restart follows that task and never sends the
 * turn again. Its working status texts are job progress; input-required ends the turn asking a
 * person, whose answer `resume` sends to the same remote task; auth-required or a refused key
 * parks the run as `blocked` (the next `poll` throws `RuntimeError('access')`, the team
 * disconnects, and after `reconnectTeam` the task is followed again). `cancel` cancels the
 * remote task.
 */
export class A2aRuntime implements AgentRuntime {
  readonly name = 'a2a';
  readonly #deps: A2aRuntimeDeps;
  readonly #store: A2aRunStore;
  readonly #executions = new Map<string, Execution>();
  readonly #notices: RunNotices;
  readonly #agents: RemoteAgents;
  #disposed = false;

  constructor(deps: A2aRuntimeDeps) {
    this.#deps = deps;
    this.#notices = new RunNotices(deps.logger);
    this.#store = new A2aRunStore(deps.db);
    this.#agents = new RemoteAgents(deps.env);
  }

  /** Mints the conversation's A2A context, so its first turn already belongs to it. */
  async ensureConversation(args: { conversationId: ConversationId }): Promise<void> {
    await this.#store.contextOf(args.conversationId, this.#now());
  }

  start(args: { runKey: string; input: TurnInput; context: RunContext }): Promise<{ runId: RunId }> {
    return this.#once(args.runKey, args.context, async () => {
      this.#agents.settings(args.context.agent);
      const contextId = await this.#store.contextOf(args.context.conversationId, this.#now());
      return this.#begin(args.runKey, args.context, {
        text: turnText(args.input),
        contextId,
        remoteTaskId: null,
        answers: null,
      });
    });
  }

  resume(args: {
    runKey: string;
    runId: RunId;
    response: PendingResponse;
    context: RunContext;
  }): Promise<{ runId: RunId }> {
    return this.#once(args.runKey, args.context, async () => {
      const waiting = await this.#store.findById(args.runId);
      const doc = waiting ? a2aRunDoc(waiting) : null;
      if (doc?.outcome?.state !== 'waiting' || doc.remoteTaskId === null) {
        throw new RuntimeError('rejected', `run ${args.runId} is not waiting for input`);
      }
      if (doc.outcome.input.requestId !== args.response.inputRequestId || args.response.kind !== 'CLARIFICATION') {
        throw new RuntimeError('rejected', `run ${args.runId} waits for another input`);
      }
      return this.#begin(args.runKey, args.context, {
        text: String(args.response.value),
        contextId: doc.contextId,
        remoteTaskId: doc.remoteTaskId,
        answers: doc.outcome.input.requestId,
      });
    });
  }

  async poll(args: { runId: RunId; context: RunContext }): Promise<RunState> {
    const ended = this.#notices.ended(args.runId);
    if (ended) return ended;
    const row = await this.#store.findById(args.runId);
    if (!row) return { state: 'failed', error: `unknown run ${args.runId}` };
    const doc = a2aRunDoc(row);
    if (row.state === 'running') {
      this.#ensureExecuting(row, args.context);
      return { state: 'running' };
    }
    if (row.state === 'blocked') {
      // Report once; the run is running again, so after reconnectTeam the next poll follows it.
      await this.#store.transition(args.runId, 'blocked', 'running', { ...doc, blocked: null }, this.#now());
      throw new RuntimeError('access', doc.blocked ?? 'The remote agent refused our credentials.');
    }
    return this.#notices.remember(args.runId, stateOf(doc.outcome));
  }

  async cancel(args: { runId: RunId; context: RunContext }): Promise<void> {
    const execution = this.#executions.get(args.runId);
    if (execution) {
      execution.cancelled = true;
      execution.controller.abort();
      return;
    }
    const row = await this.#store.findById(args.runId);
    if (row?.state !== 'running' && row?.state !== 'blocked') return;
    const doc = a2aRunDoc(row);
    await this.#agents.cancelRun(args.context.agent, doc, this.#deps.logger);
    if (
      await this.#store.transition(
        args.runId,
        row.state,
        'cancelled',
        settled(doc, { state: 'cancelled' }),
        this.#now(),
      )
    ) {
      this.#notices.remember(args.runId, { state: 'cancelled' });
      this.#notices.emit({ type: 'settled', runId: args.runId });
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

  /** Joins concurrent calls for one key, so a retried call never starts a turn twice. */
  #once(runKey: string, context: RunContext, call: () => Promise<{ runId: RunId }>): Promise<{ runId: RunId }> {
    return this.#notices.once(runKey, async () => {
      const existing = await this.#store.findByKey(runKey);
      if (!existing) return call();
      if (existing.state === 'running') this.#ensureExecuting(existing, context);
      return { runId: asRunId(existing.run_id) };
    });
  }

  async #begin(
    runKey: string,
    context: RunContext,
    turn: Pick<A2aRunDoc, 'text' | 'contextId' | 'remoteTaskId' | 'answers'>,
  ): Promise<{ runId: RunId }> {
    const runId = asRunId(`arun_${runKey}`);
    const doc: A2aRunDoc = {
      ...turn,
      teamId: context.teamId,
      jobId: context.jobId,
      startedAtMs: this.#deps.clock.nowMs(),
      timeoutMs: context.agent.timeoutMs,
      messageId: runKey,
      sentAtMs: null,
      delivered: false,
      outcome: null,
      blocked: null,
    };
    const inserted = await this.#store.begin({
      runKey,
      runId,
      conversationId: context.conversationId,
      jobId: context.jobId,
      doc,
      now: this.#now(),
    });
    if (inserted) this.#execute(runId, doc, context);
    return { runId };
  }

  #ensureExecuting(row: A2aRunRow, context: RunContext): void {
    if (this.#disposed || this.#executions.has(row.run_id)) return;
    this.#execute(asRunId(row.run_id), a2aRunDoc(row), context);
  }

  #execute(runId: RunId, initial: A2aRunDoc, context: RunContext): void {
    const execution: Execution = { controller: new AbortController(), cancelled: false };
    this.#executions.set(runId, execution);
    let doc = initial;
    const signal = execution.controller.signal;
    this.#agents.settings(context.agent); // unusable settings reject the run before it executes
    void (async () => {
      let end: TurnEnd;
      try {
        end = await runRemoteTurn({
          doc,
          save: async (next) => {
            doc = next;
            await this.#store.transition(runId, 'running', 'running', next, this.#now());
          },
          agent: () => this.#agents.connect(context.agent, signal),
          forget: () => this.#agents.forget(context.agent),
          metadata: async () => turnMetadata(context, await this.#deps.mcpUrl()),
          adoptContext: (contextId) => this.#store.adoptContext(context.conversationId, contextId, this.#now()),
          progress: (text) =>
            this.#notices.emit({
              type: 'progress',
              progress: { type: 'text', runId, jobId: context.jobId, delta: `${text}\n` },
            }),
          signal,
          deadlineMs: doc.startedAtMs + (doc.timeoutMs > 0 ? doc.timeoutMs : 180_000),
          nowMs: () => this.#deps.clock.nowMs(),
          sleep: abortableSleep,
          retryBaseMs: this.#deps.retryBaseMs ?? 500,
          pollMs: this.#deps.pollMs ?? A2A_POLL_MS,
        });
      } catch (error) {
        if (!(error instanceof RemoteCallError && error.kind === 'aborted')) {
          this.#deps.logger.error('a2a run failed unexpectedly', { runId, jobId: context.jobId, error: String(error) });
        }
        end = {
          kind: 'outcome',
          outcome: { state: 'failed', error: 'The a2a run failed unexpectedly; see the server log.' },
        };
      }
      if (this.#disposed && !execution.cancelled) return;
      if (execution.cancelled) {
        await this.#agents.cancelRun(context.agent, doc, this.#deps.logger);
        end = { kind: 'outcome', outcome: { state: 'cancelled' } };
      }
      await this.#settle(runId, doc, end, context);
    })()
      .catch((error: unknown) => {
        this.#deps.logger.error('a2a run could not record its outcome', { runId, error: String(error) });
      })
      .finally(() => this.#executions.delete(runId));
  }

  async #settle(runId: RunId, doc: A2aRunDoc, end: TurnEnd, context: RunContext): Promise<void> {
    if (end.kind === 'blocked') {
      this.#deps.logger.warn('remote agent refused access; the run waits for reconnectTeam', {
        runId,
        jobId: context.jobId,
        reason: end.reason,
      });
      if (await this.#store.transition(runId, 'running', 'blocked', { ...doc, blocked: end.reason }, this.#now())) {
        this.#notices.emit({ type: 'settled', runId });
      }
      return;
    }
    if (await this.#store.transition(runId, 'running', end.outcome.state, settled(doc, end.outcome), this.#now())) {
      this.#notices.remember(runId, stateOf(end.outcome));
      this.#notices.emit({ type: 'settled', runId });
    }
  }

  #now(): string {
    return nowTimestamp(this.#deps.clock);
  }
}
