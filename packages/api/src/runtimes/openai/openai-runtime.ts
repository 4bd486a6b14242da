import {
  asRunId,
  type ResumeRunArgs,
  type RunContext,
  type RunId,
  type RunState,
  RuntimeError,
  type StartRunArgs,
  teamMessageEntry,
  WAKE_KIND,
} from '@agent-teams/core';
import type { DatabaseDialect } from '../../storage/open-database.js';
import { abortableSleep } from '../durable/abortable-sleep.js';
import { DurableRuntime, type DurableRuntimeDeps, type RunExecution } from '../durable/durable-runtime.js';
import type { RunRow } from '../durable/run-table.js';
import { heldByExecution, type SpendGuard } from '../spend-guard.js';
import { recordLostAnswer } from './call-usage.js';
import { ModelCallError } from './chat-call.js';
import { ASK_CLARIFICATION } from './member-tools.js';
import { ModelClients } from './model-clients.js';
import {
  type MessageDraft,
  type OpenAiRunDoc,
  OpenAiRunStore,
  type RunOutcome,
  type TurnFinish,
} from './openai-run-store.js';
import { type OpenAiSettings, OpenAiSettingsError, parseOpenAiSettings } from './openai-settings.js';
import { runStateOf } from './run-outcome.js';
import { runTurn, WAIT_FOR_CHANGE } from './turn-loop.js';
import { clarificationResult, displayText, type RunMember, turnMessage } from './turn-prompt.js';

/** What {@link OpenAiRuntime} is built from. */
export interface OpenAiRuntimeDeps extends DurableRuntimeDeps {
  readonly dialect: DatabaseDialect;
  /** Where `apiKeyEnv` names are looked up (the process environment in production). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** First retry delay after a 429/5xx (default 500 ms; doubled per attempt, within the deadline). */
  readonly retryBaseMs?: number;
  /** Checks each model call against the team and owner budgets (default: no budgets). */
  readonly spend?: SpendGuard;
}

/**
 * The `openai` agent runtime: drives any OpenAI-compatible Chat Completions API (OpenAI,
 * DeepSeek, Ollama, vLLM, LM Studio, OpenRouter) over `node:http` (`provider-http.ts`), as the
 * official `openai` client sent and read them.
 *
 * @remarks Durable and idempotent by run key like the scripted runtime: `start` begins the run
 * and returns at once; the turn runs in the background (`turn-loop.ts`), the run and its input are
 * written with its first step (or by `persist`, decision 0220) and every step is persisted before
 * it is acted on, so `poll` after a restart replays the run from its last step and never
 * re-sends an answered call. A refused key (401/403,
 * or an unset `apiKeyEnv`) parks the run as `blocked`; the next `poll` throws
 * `RuntimeError('access')`, the scheduler disconnects the team, and after `reconnectTeam` the
 * run continues from where it stopped. `cancel` aborts the HTTP request in flight.
 */
export class OpenAiRuntime extends DurableRuntime<OpenAiRunDoc> {
  readonly name = 'openai';
  readonly #deps: OpenAiRuntimeDeps;
  readonly #store: OpenAiRunStore;
  readonly #clients: ModelClients;
  readonly #ridesOn: boolean;

  constructor(deps: OpenAiRuntimeDeps) {
    super(deps);
    this.#deps = deps;
    this.#clients = new ModelClients(deps.env);
    this.#store = new OpenAiRunStore(deps.db, deps.dialect, this.runs);
    this.#ridesOn = (deps.rides ?? null) !== null;
  }

  /** Stops the executions as the base does, then closes the idle provider connections. */
  override async dispose(): Promise<void> {
    await super.dispose();
    this.#clients.close();
  }

  start(args: StartRunArgs): Promise<{ runId: RunId }> {
    return this.once(args, async () => {
      // Begun here already (started again after the acknowledgement grace): that run, unchecked.
      const held = runIdOf(args.runKey);
      if (this.#store.isStaged(held)) return { runId: held };
      this.#settings(args.context);
      const user = (content: string, shown: string): MessageDraft => ({
        role: 'user',
        content,
        displayText: shown,
        toolCalls: null,
        toolCallId: null,
        toolName: null,
      });
      // Delivered team messages first, each its own user entry; a message turn has no text of its own.
      const delivered = (args.input.messages ?? []).map((m) => user(teamMessageEntry(m), teamMessageEntry(m)));
      const own = args.input.kind === 'message' ? [] : [user(turnMessage(args.input), displayText(args.input))];
      const member = {
        name: args.input.memberName,
        role: args.input.memberRole ?? null,
        isLead: args.input.memberIsLead === true,
      };
      return this.#begin(args.runKey, member, [...delivered, ...own], args.context);
    });
  }

  protected async resumeRun(args: ResumeRunArgs, asked: OpenAiRunDoc | null): Promise<{ runId: RunId }> {
    const outcome = asked?.outcome;
    if (asked !== null && outcome?.state === 'waiting_change' && args.response.kind === WAKE_KIND) {
      if (outcome.wait.requestId !== args.response.inputRequestId) {
        throw new RuntimeError('rejected', `run ${args.runId} waits for another change`);
      }
      // The woken wait's result answers the model's wait_for_change call.
      const result = {
        role: 'tool' as const,
        content: JSON.stringify(args.response.value),
        toolCalls: null,
        toolCallId: outcome.toolCallId,
        toolName: WAIT_FOR_CHANGE,
      };
      const member = { name: asked.memberName, role: asked.memberRole ?? null, isLead: asked.memberIsLead === true };
      return this.#begin(args.runKey, member, [result], args.context);
    }
    if (asked === null || outcome?.state !== 'waiting') {
      throw new RuntimeError('rejected', `run ${args.runId} is not waiting for input`);
    }
    if (outcome.input.requestId !== args.response.inputRequestId || args.response.kind !== 'CLARIFICATION') {
      throw new RuntimeError('rejected', `run ${args.runId} waits for another input`);
    }
    const answer = {
      role: 'tool' as const,
      content: clarificationResult(args.response.value),
      toolCalls: null,
      toolCallId: outcome.toolCallId,
      toolName: ASK_CLARIFICATION,
    };
    const member = { name: asked.memberName, role: asked.memberRole ?? null, isLead: asked.memberIsLead === true };
    return this.#begin(args.runKey, member, [answer], args.context);
  }

  protected async stoppedState(row: RunRow, doc: OpenAiRunDoc): Promise<RunState> {
    if (row.state === 'blocked') return this.reportBlocked(row, doc, 'The model provider refused the API key.');
    return runStateOf(doc.outcome);
  }

  protected async cancelStored(row: RunRow, document: OpenAiRunDoc): Promise<void> {
    if (row.state !== 'running' && row.state !== 'blocked') return;
    const doc: OpenAiRunDoc = { ...document, outcome: { state: 'cancelled' }, blocked: null };
    if (await this.runs.transition(row.run_id, row.state, 'cancelled', doc, this.now())) {
      this.settle(asRunId(row.run_id), { state: 'cancelled' });
    }
  }

  /** Begins a run with its first messages (team messages and the turn's input, or a person's answer) and runs it. */
  async #begin(
    runKey: string,
    member: RunMember,
    first: readonly MessageDraft[],
    context: RunContext,
  ): Promise<{ runId: RunId }> {
    const runId = runIdOf(runKey);
    if (this.#store.isStaged(runId)) return { runId }; // begun here already: a resume submitted again
    const doc = this.#newDoc(member, context);
    // Written with its first step, or by `persist` if the scheduler records it first (decision 0220).
    this.#store.stage({
      runKey,
      runId,
      conversationId: context.conversationId,
      jobId: context.jobId,
      doc,
      messages: first,
      now: this.now(),
    });
    this.launch(runId, runKey, doc, context);
    return { runId };
  }

  /** Writes a run begun here and not written yet (the scheduler is about to record its id). */
  persist(args: { runId: RunId }): Promise<void> {
    return this.#store.persist(args.runId, this.now());
  }

  protected override isHeld(runId: string): boolean {
    return this.#store.isStaged(runId);
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

  #newDoc(member: RunMember, context: RunContext): OpenAiRunDoc {
    return {
      memberName: member.name,
      memberRole: member.role,
      memberIsLead: member.isLead,
      teamId: context.teamId,
      jobId: context.jobId,
      startedAtMs: this.clock.nowMs(),
      timeoutMs: context.agent.timeoutMs,
      outcome: null,
      blocked: null,
    };
  }

  protected async execute(run: RunExecution<OpenAiRunDoc>): Promise<void> {
    try {
      await this.#execute(run);
    } catch (error) {
      // A write threw: an unwritten begin stays for the scheduler's `persist` (which replays it).
      this.#store.orphan(run.runId);
      throw error;
    }
    // Written, lost to another execution, or stopped: an unwritten begin belongs to nobody now.
    this.#store.drop(run.runId);
  }

  async #execute(run: RunExecution<OpenAiRunDoc>): Promise<void> {
    const { runId, runKey, context, document: doc } = run;
    let outcome: RunOutcome | null;
    const finish: TurnFinish = { document: (ended) => ({ ...doc, outcome: ended }), recorded: false };
    if (this.#ridesOn) {
      // The final answer's write, handed over: committed with the job write that records the run.
      // A process going away records nothing, as a crash would.
      finish.offer = (write, ends, usage) => {
        if (run.abandoned) return;
        const fields = { runId, jobId: context.jobId };
        const writer = { store: this.#store, logger: this.logger, ...fields, now: () => this.now() };
        const lost = () => void (usage && recordLostAnswer(writer, usage));
        this.endRun(this.#store.context, { runKey, runId, state: runStateOf(ends) }, write, lost).catch(
          (error: unknown) =>
            this.logger.error('openai run could not record its outcome', { ...fields, error: String(error) }),
        );
      };
    }
    try {
      const settings = parseOpenAiSettings(context.agent.settings);
      outcome = await runTurn({
        runId,
        runKey,
        teamId: context.teamId,
        jobId: context.jobId,
        conversationId: context.conversationId,
        memberName: doc.memberName,
        memberRole: doc.memberRole ?? null,
        memberIsLead: doc.memberIsLead === true,
        settings,
        endpoint: this.#clients.endpoint(settings),
        tools: context.tools,
        store: this.#store,
        signal: run.signal,
        deadlineMs: doc.startedAtMs + (doc.timeoutMs > 0 ? doc.timeoutMs : 180_000),
        nowMs: () => this.clock.nowMs(),
        now: () => this.now(),
        sleep: abortableSleep,
        retryBaseMs: this.#deps.retryBaseMs ?? 500,
        spend: heldByExecution(this.#deps.spend ?? null),
        logger: this.logger,
        finish,
        progress: {
          text: (delta) => run.progress({ type: 'text', delta }),
          tool: (name) => run.progress({ type: 'tool', name }),
        },
      });
    } catch (error) {
      if (error instanceof ModelCallError && error.kind === 'access' && !run.cancelled) {
        if (!run.abandoned) {
          await this.#store.persist(runId, this.now());
          await this.park(runId, context.jobId, { ...doc, blocked: error.message }, error.message);
        }
        return;
      }
      this.logger.error('openai run failed unexpectedly', { runId, jobId: context.jobId, error: String(error) });
      outcome = { state: 'failed', error: 'The openai run failed unexpectedly; see the server log.' };
    }
    // Offered with the turn's last step (announced then): whatever happened after, nothing is left.
    if (finish.ridden) return;
    if (outcome !== null && finish.recorded) {
      // Recorded with the turn's last step: the run has ended in the database.
      this.settle(runId, runStateOf(outcome));
      return;
    }
    if (outcome === null || run.abandoned) return;
    if (run.cancelled) outcome = { state: 'cancelled' };
    // An outcome without a step to carry it (a refused or failed call, a cancel): the run first.
    await this.#store.persist(runId, this.now());
    if (await this.runs.transition(runId, 'running', outcome.state, { ...doc, outcome }, this.now())) {
      this.settle(runId, runStateOf(outcome));
    }
  }
}

/** Run ids derive from keys, so a replayed start answers the same run. */
function runIdOf(runKey: string): RunId {
  return asRunId(`orun_${runKey}`);
}
