import {
  type AgentRuntime,
  asRunId,
  type Clock,
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
import OpenAI from 'openai';
import type { Database } from '../../storage/database-types.js';
import type { DatabaseDialect } from '../../storage/open-database.js';
import { RunNotices } from '../run-notices.js';
import { abortableSleep } from '../scripted/abortable-sleep.js';
import { ModelCallError } from './chat-call.js';
import { ASK_CLARIFICATION } from './member-tools.js';
import { type OpenAiRunDoc, type OpenAiRunRow, OpenAiRunStore, type RunOutcome, runDoc } from './openai-run-store.js';
import { type OpenAiSettings, OpenAiSettingsError, parseOpenAiSettings } from './openai-settings.js';
import { runTurn } from './turn-loop.js';
import { clarificationResult, turnMessage } from './turn-prompt.js';

/** What {@link OpenAiRuntime} is built from. */
export interface OpenAiRuntimeDeps {
  readonly db: Kysely<Database>;
  readonly dialect: DatabaseDialect;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where `apiKeyEnv` names are looked up (the process environment in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** First retry delay after a 429/5xx (default 500 ms; doubled per attempt, within the deadline). */
  readonly retryBaseMs?: number;
}

interface Execution {
  readonly controller: AbortController;
  cancelled: boolean;
}

/**
 * The `openai` agent runtime: drives any OpenAI-compatible Chat Completions API (OpenAI,
 * DeepSeek, Ollama, vLLM, LM Studio, OpenRouter) through the official `openai` client.
 *
 * @remarks Durable and idempotent by run key like the scripted runtime: `start` persists the run
 * and the turn's input in one transaction and returns at once; the turn runs in the background
 * (`turn-loop.ts`) and every step is persisted before it is acted on, so `poll` after a restart
 * replays the run from its last step and never re-sends an answered call. A refused key (401/403,
 * or an unset `apiKeyEnv`) parks the run as `blocked`; the next `poll` throws
 * `RuntimeError('access')`, the scheduler disconnects the team, and after `reconnectTeam` the
 * run continues from where it stopped. `cancel` aborts the HTTP request in flight.
 */
export class OpenAiRuntime implements AgentRuntime {
  readonly name = 'openai';
  readonly #deps: OpenAiRuntimeDeps;
  readonly #store: OpenAiRunStore;
  readonly #executions = new Map<string, Execution>();
  readonly #notices: RunNotices;
  readonly #clients = new Map<string, OpenAI>();
  #disposed = false;

  constructor(deps: OpenAiRuntimeDeps) {
    this.#deps = deps;
    this.#notices = new RunNotices(deps.logger);
    this.#store = new OpenAiRunStore(deps.db, deps.dialect);
  }

  /** Provider conversations are stateless: the runtime keeps the history itself. */
  async ensureConversation(): Promise<void> {}

  start(args: { runKey: string; input: TurnInput; context: RunContext }): Promise<{ runId: RunId }> {
    return this.#once(args.runKey, args.context, async () => {
      this.#settings(args.context);
      const runId = runIdOf(args.runKey);
      const doc = this.#newDoc(args.input.memberName, args.context);
      const user = {
        role: 'user' as const,
        content: turnMessage(args.input),
        displayText: displayText(args.input),
        toolCalls: null,
        toolCallId: null,
        toolName: null,
      };
      const inserted = await this.#store.begin({
        runKey: args.runKey,
        runId,
        conversationId: args.context.conversationId,
        jobId: args.context.jobId,
        doc,
        messages: [user],
        now: this.#now(),
      });
      if (inserted) this.#execute(runId, args.runKey, doc, args.context);
      return { runId };
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
      const outcome = waiting ? runDoc(waiting).outcome : null;
      if (!waiting || outcome?.state !== 'waiting') {
        throw new RuntimeError('rejected', `run ${args.runId} is not waiting for input`);
      }
      if (outcome.input.requestId !== args.response.inputRequestId || args.response.kind !== 'CLARIFICATION') {
        throw new RuntimeError('rejected', `run ${args.runId} waits for another input`);
      }
      const runId = runIdOf(args.runKey);
      const doc = this.#newDoc(runDoc(waiting).memberName, args.context);
      const answer = {
        role: 'tool' as const,
        content: clarificationResult(args.response.value),
        toolCalls: null,
        toolCallId: outcome.toolCallId,
        toolName: ASK_CLARIFICATION,
      };
      const inserted = await this.#store.begin({
        runKey: args.runKey,
        runId,
        conversationId: args.context.conversationId,
        jobId: args.context.jobId,
        doc,
        messages: [answer],
        now: this.#now(),
      });
      if (inserted) this.#execute(runId, args.runKey, doc, args.context);
      return { runId };
    });
  }

  async poll(args: { runId: RunId; context: RunContext }): Promise<RunState> {
    const ended = this.#notices.ended(args.runId);
    if (ended) return ended;
    const row = await this.#store.findById(args.runId);
    if (!row) return { state: 'failed', error: `unknown run ${args.runId}` };
    const doc = runDoc(row);
    if (row.state === 'running') {
      this.#ensureExecuting(row, args.context);
      return { state: 'running' };
    }
    if (row.state === 'blocked') {
      // Report once; the run is running again, so after reconnectTeam the next poll replays it.
      await this.#store.transition(args.runId, 'blocked', 'running', { ...doc, blocked: null }, this.#now());
      throw new RuntimeError('access', doc.blocked ?? 'The model provider refused the API key.');
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
    const doc: OpenAiRunDoc = { ...runDoc(row), outcome: { state: 'cancelled' }, blocked: null };
    if (await this.#store.transition(args.runId, row.state, 'cancelled', doc, this.#now())) {
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

  #settings(context: RunContext): OpenAiSettings {
    try {
      return parseOpenAiSettings(context.agent.settings);
    } catch (error) {
      const key = error instanceof OpenAiSettingsError ? error.key : 'settings';
      throw new RuntimeError('rejected', `agent "${context.agent.name}" has unusable openai settings (${key})`, {
        cause: error,
      });
    }
  }

  #newDoc(memberName: string, context: RunContext): OpenAiRunDoc {
    return {
      memberName,
      teamId: context.teamId,
      jobId: context.jobId,
      startedAtMs: this.#deps.clock.nowMs(),
      timeoutMs: context.agent.timeoutMs,
      outcome: null,
      blocked: null,
    };
  }

  #ensureExecuting(row: OpenAiRunRow, context: RunContext): void {
    if (this.#disposed || this.#executions.has(row.run_id)) return;
    this.#execute(asRunId(row.run_id), row.run_key, runDoc(row), context);
  }

  #client(settings: OpenAiSettings): OpenAI {
    const apiKey = settings.apiKeyEnv === null ? 'not-needed' : this.#deps.env[settings.apiKeyEnv];
    if (apiKey === undefined || apiKey === '') {
      throw new ModelCallError(
        'access',
        `The environment variable ${settings.apiKeyEnv} holding the API key is not set.`,
      );
    }
    const cacheKey = `${settings.baseUrl}\n${apiKey}`;
    let client = this.#clients.get(cacheKey);
    if (!client) {
      client = new OpenAI({
        baseURL: settings.baseUrl,
        apiKey,
        maxRetries: 0,
        logLevel: 'off',
        // The global fetch, looked up per call (so an HTTP-boundary mock installed later applies).
        fetch: (input, init) => globalThis.fetch(input, init),
      });
      this.#clients.set(cacheKey, client);
    }
    return client;
  }

  #execute(runId: RunId, runKey: string, doc: OpenAiRunDoc, context: RunContext): void {
    const execution: Execution = { controller: new AbortController(), cancelled: false };
    this.#executions.set(runId, execution);
    const progress = (notice: { type: 'text'; delta: string } | { type: 'tool'; name: string }) =>
      this.#notices.emit({
        type: 'progress',
        progress:
          notice.type === 'text'
            ? { type: 'text', runId, jobId: context.jobId, delta: notice.delta }
            : { type: 'tool', runId, jobId: context.jobId, name: notice.name },
      });
    void (async () => {
      let outcome: RunOutcome | null;
      try {
        const settings = parseOpenAiSettings(context.agent.settings);
        outcome = await runTurn({
          runId,
          runKey,
          teamId: context.teamId,
          jobId: context.jobId,
          conversationId: context.conversationId,
          memberName: doc.memberName,
          settings,
          client: this.#client(settings),
          tools: context.tools,
          store: this.#store,
          signal: execution.controller.signal,
          deadlineMs: doc.startedAtMs + (doc.timeoutMs > 0 ? doc.timeoutMs : 180_000),
          nowMs: () => this.#deps.clock.nowMs(),
          now: () => this.#now(),
          sleep: abortableSleep,
          retryBaseMs: this.#deps.retryBaseMs ?? 500,
          progress: {
            text: (delta) => progress({ type: 'text', delta }),
            tool: (name) => progress({ type: 'tool', name }),
          },
        });
      } catch (error) {
        if (error instanceof ModelCallError && error.kind === 'access' && !execution.cancelled) {
          if (this.#disposed) return;
          this.#deps.logger.warn('model provider refused the API key; the run waits for reconnectTeam', {
            runId,
            jobId: context.jobId,
            error: error.message,
          });
          if (
            await this.#store.transition(runId, 'running', 'blocked', { ...doc, blocked: error.message }, this.#now())
          ) {
            this.#notices.emit({ type: 'settled', runId });
          }
          return;
        }
        this.#deps.logger.error('openai run failed unexpectedly', {
          runId,
          jobId: context.jobId,
          error: String(error),
        });
        outcome = { state: 'failed', error: 'The openai run failed unexpectedly; see the server log.' };
      }
      if (outcome === null) return;
      if (this.#disposed && !execution.cancelled) return;
      if (execution.cancelled) outcome = { state: 'cancelled' };
      if (await this.#store.transition(runId, 'running', outcome.state, { ...doc, outcome }, this.#now())) {
        this.#notices.remember(runId, stateOf(outcome));
        this.#notices.emit({ type: 'settled', runId });
      }
    })()
      .catch((error: unknown) => {
        this.#deps.logger.error('openai run could not record its outcome', { runId, error: String(error) });
      })
      .finally(() => this.#executions.delete(runId));
  }

  #now(): string {
    return nowTimestamp(this.#deps.clock);
  }
}

/** Run ids derive from keys, so a replayed start answers the same run. */
function runIdOf(runKey: string): RunId {
  return asRunId(`orun_${runKey}`);
}

function stateOf(outcome: RunOutcome | null): RunState {
  if (outcome === null) return { state: 'failed', error: 'run has no outcome' };
  return outcome.state === 'waiting' ? { state: 'waiting', input: outcome.input } : outcome;
}

/** The readable text of a turn's input in `Member.conversation`. */
function displayText(input: TurnInput): string {
  if (input.kind === 'receipt' && input.receipt !== null) {
    return `Result from ${input.receipt.fromMemberName} (${input.receipt.status}): ${input.receipt.result}`;
  }
  return input.text;
}
