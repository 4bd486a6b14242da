import {
  asRunId,
  type ConversationId,
  type ResumeRunArgs,
  type RunContext,
  type RunId,
  RuntimeError,
  type StartRunArgs,
} from '@agent-teams/core';
import { abortableSleep } from '../durable/abortable-sleep.js';
import { DurableRuntime, type DurableRuntimeDeps, type RunExecution } from '../durable/durable-runtime.js';
import type { RunRow } from '../durable/run-table.js';
import { A2aContexts } from './a2a-contexts.js';
import { type A2aRunDoc, settled, stateOf } from './a2a-run-doc.js';
import { RemoteCallError } from './remote-agent.js';
import { RemoteAgents } from './remote-agents.js';
import { runRemoteTurn, type TurnEnd } from './remote-turn.js';
import { turnMetadata, turnText } from './turn-text.js';

/** What {@link A2aRuntime} is built from. */
export interface A2aRuntimeDeps extends DurableRuntimeDeps {
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

/**
 * The `a2a` agent runtime: a member whose agent runs elsewhere and speaks A2A (protocol 1.0),
 * driven through the official SDK's client, on the durable-run base.
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
export class A2aRuntime extends DurableRuntime<A2aRunDoc> {
  readonly name = 'a2a';
  readonly #deps: A2aRuntimeDeps;
  readonly #contexts: A2aContexts;
  readonly #agents: RemoteAgents;

  constructor(deps: A2aRuntimeDeps) {
    super(deps);
    this.#deps = deps;
    this.#contexts = new A2aContexts(deps.db);
    this.#agents = new RemoteAgents(deps.env);
  }

  /** Mints the conversation's A2A context, so its first turn already belongs to it. */
  override async ensureConversation(args: { conversationId: ConversationId }): Promise<void> {
    await this.#contexts.contextOf(args.conversationId, this.now());
  }

  start(args: StartRunArgs): Promise<{ runId: RunId }> {
    return this.once(args, async () => {
      this.#agents.settings(args.context.agent);
      const contextId = await this.#contexts.contextOf(args.context.conversationId, this.now());
      return this.#begin(args.runKey, args.context, {
        text: turnText(args.input),
        contextId,
        remoteTaskId: null,
        answers: null,
      });
    });
  }

  protected resumeRun(args: ResumeRunArgs, doc: A2aRunDoc | null): Promise<{ runId: RunId }> {
    this.#agents.settings(args.context.agent);
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
  }

  protected async stoppedState(row: RunRow, doc: A2aRunDoc) {
    if (row.state === 'blocked') return this.reportBlocked(row, doc, 'The remote agent refused our credentials.');
    return stateOf(doc.outcome);
  }

  protected async cancelStored(row: RunRow, doc: A2aRunDoc, context: RunContext): Promise<void> {
    if (row.state !== 'running' && row.state !== 'blocked') return;
    await this.#agents.cancelRun(context.agent, doc, this.logger);
    const cancelled = settled(doc, { state: 'cancelled' });
    if (await this.runs.transition(row.run_id, row.state, 'cancelled', cancelled, this.now())) {
      this.settle(asRunId(row.run_id), { state: 'cancelled' });
    }
  }

  async #begin(
    runKey: string,
    context: RunContext,
    turn: Pick<A2aRunDoc, 'text' | 'contextId' | 'remoteTaskId' | 'answers'>,
  ): Promise<{ runId: RunId }> {
    const runId = asRunId(`arun_${runKey}`);
    // Not literals that begin with a spread (see `UNADMITTED` in the core): one per turn.
    const document: A2aRunDoc = Object.assign({}, turn, {
      teamId: context.teamId,
      jobId: context.jobId,
      startedAtMs: this.clock.nowMs(),
      timeoutMs: context.agent.timeoutMs,
      messageId: runKey,
      sentAtMs: null,
      delivered: false,
      outcome: null,
      blocked: null,
    });
    const run = { runKey, runId, runtime: this.name, conversationId: context.conversationId, jobId: context.jobId };
    if (await this.runs.insert(Object.assign({}, run, { state: 'running', document, now: this.now() }))) {
      this.launch(runId, runKey, document, context);
    }
    return { runId };
  }

  protected async execute(run: RunExecution<A2aRunDoc>): Promise<void> {
    const { runId, context, signal } = run;
    let doc = run.document;
    let end: TurnEnd;
    try {
      end = await runRemoteTurn({
        doc,
        save: async (next) => {
          doc = next;
          await this.runs.transition(runId, 'running', 'running', next, this.now());
        },
        agent: () => this.#agents.connect(context.agent, signal),
        forget: () => this.#agents.forget(context.agent),
        metadata: async () => turnMetadata(context, await this.#deps.mcpUrl()),
        adoptContext: (contextId) => this.#contexts.adoptContext(context.conversationId, contextId, this.now()),
        progress: (text) => run.progress({ type: 'text', delta: `${text}\n` }),
        signal,
        deadlineMs: doc.startedAtMs + (doc.timeoutMs > 0 ? doc.timeoutMs : 180_000),
        nowMs: () => this.clock.nowMs(),
        sleep: abortableSleep,
        retryBaseMs: this.#deps.retryBaseMs ?? 500,
        pollMs: this.#deps.pollMs ?? A2A_POLL_MS,
      });
    } catch (error) {
      if (!(error instanceof RemoteCallError && error.kind === 'aborted')) {
        this.logger.error('a2a run failed unexpectedly', { runId, jobId: context.jobId, error: String(error) });
      }
      end = {
        kind: 'outcome',
        outcome: { state: 'failed', error: 'The a2a run failed unexpectedly; see the server log.' },
      };
    }
    if (run.abandoned) return;
    if (run.cancelled) {
      await this.#agents.cancelRun(context.agent, doc, this.logger);
      end = { kind: 'outcome', outcome: { state: 'cancelled' } };
    }
    await this.#record(runId, doc, end, context);
  }

  /** Records how the turn ended: blocked (reported by the next poll) or its outcome. */
  async #record(runId: RunId, doc: A2aRunDoc, end: TurnEnd, context: RunContext): Promise<void> {
    if (end.kind === 'blocked') return this.park(runId, context.jobId, { ...doc, blocked: end.reason }, end.reason);
    if (await this.runs.transition(runId, 'running', end.outcome.state, settled(doc, end.outcome), this.now())) {
      this.settle(runId, stateOf(end.outcome));
    }
  }
}
