import {
  type ChangeWaitPlan,
  type ConversationId,
  InputKind,
  JobErrorCode,
  type JobId,
  Limits,
  type Logger,
  type MemberToolPort,
  type TeamId,
  truncateUtf8,
} from '@agent-teams/core';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { callKey } from '../call-key.js';
import type { SpendGuard } from '../spend-guard.js';
import { answerUsage, cancelledCall, recordFailedAttempt, recordLostAnswer } from './call-usage.js';
import { callModel, type ModelCallError } from './chat-call.js';
import type { ProgressSink } from './chunk-accumulator.js';
import { buildContextWindow } from './context-window.js';
import { judgeFinish } from './finish-reasons.js';
import {
  ASK_CLARIFICATION,
  executeMemberTool,
  parseArguments,
  planWait,
  type ToolCall,
  toolsFor,
} from './member-tools.js';
import type { ModelEndpoint } from './model-clients.js';
import type { MessageDraft, OpenAiRunStore, PersistedMessage, RunOutcome, TurnFinish } from './openai-run-store.js';
import type { OpenAiSettings } from './openai-settings.js';
import { type HeldCall, promptEstimate, reserveCall } from './reserve-call.js';
import { logRetry } from './retry-log.js';
import { lostToolCalls, TOOL_CALLS_LOST } from './stored-tool-calls.js';
import { distinctToolCallIds, fallbackToolCallPrefix, takenToolCallIds } from './tool-call-ids.js';
import { systemPrompt } from './turn-prompt.js';

/** How many of a conversation's newest messages the context policy looks at. */
export const HISTORY_LIMIT = 400;

/** The answer of a turn whose model replied with no text. */
export const EMPTY_ANSWER = 'Agent completed without a text answer.';

/** What one execution of a run uses. */
export interface TurnEnv {
  readonly runId: string;
  readonly runKey: string;
  readonly teamId: TeamId;
  readonly jobId: JobId;
  readonly conversationId: ConversationId;
  readonly memberName: string;
  readonly memberRole: string | null;
  /** The lead is offered the lead's tools; others never see them. */
  readonly memberIsLead: boolean;
  readonly settings: OpenAiSettings;
  readonly endpoint: ModelEndpoint;
  readonly tools: MemberToolPort;
  readonly store: OpenAiRunStore;
  readonly signal: AbortSignal;
  readonly deadlineMs: number;
  readonly nowMs: () => number;
  readonly now: () => string;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<boolean>;
  readonly retryBaseMs: number;
  readonly progress: ProgressSink;
  /** Checks each model call against the budgets first; null: no budgets. */
  readonly spend: SpendGuard | null;
  /** Told what the turn could not record and went on without (`recordFailedAttempt`). */
  readonly logger: Logger;
  /** When set, a step that ends the turn records the run's outcome in its own commit (or hands it over to ride). */
  readonly finish?: TurnFinish;
}

/**
 * Runs (or continues) one turn from what is persisted, until it ends: a final answer, a question
 * for a person, a failure or a cancellation.
 *
 * @remarks A loop over persisted state, so the same code serves a fresh run and a replay after a
 * restart: if the run's last message is a model answer with tool calls, the unanswered calls run
 * (each result persisted on its own); if it is a final answer, the turn is complete without
 * calling the provider again; otherwise the model is called, and its answer is persisted with its
 * usage before anything acts on it. After `maxToolRounds` rounds of tool calls the model is called
 * once more with tools disabled (`tool_choice: "none"`). A turn whose stored tool calls no longer
 * read fails with `STATE_LOST` (`stored-tool-calls.ts`), never taking their answer as the final one.
 * @returns the outcome, or null when another execution of the same run wrote a step first.
 * @throws ModelCallError of kind `access` (the key was refused), anything unexpected (storage).
 */
export async function runTurn(env: TurnEnv): Promise<RunOutcome | null> {
  for (;;) {
    if (env.signal.aborted) return { state: 'cancelled' };
    const messages = await env.store.runMessages(env.runId);
    const lastAssistantIndex = messages.map((m) => m.role).lastIndexOf('assistant');
    const lastAssistant = messages[lastAssistantIndex];
    if (lastAssistant) {
      if (lastAssistant.toolCallsLost) return TOOL_CALLS_LOST;
      const calls = lastAssistant.toolCalls ?? [];
      if (calls.length === 0) return { state: 'completed', answer: lastAssistant.content || EMPTY_ANSWER };
      const answered = new Set(messages.slice(lastAssistantIndex + 1).map((m) => m.toolCallId));
      const step = await answerCalls(env, calls, answered, messages.length);
      if (step === null) return null;
      if (step.ask !== null) return step.ask;
      if (step.wrote) continue;
    }
    const outcome = await askModel(env, messages);
    if (outcome !== 'continue') return outcome;
  }
}

/** Runs the unanswered member tool calls; answers the question of the first `ask_clarification`. */
async function answerCalls(
  env: TurnEnv,
  calls: readonly ToolCall[],
  answered: ReadonlySet<string | null>,
  firstStep: number,
): Promise<{ wrote: boolean; ask: RunOutcome | null } | null> {
  let step = firstStep;
  let question: { call: ToolCall; text: string } | null = null;
  let pause: { call: ToolCall; plan: ChangeWaitPlan } | null = null;
  for (const call of calls) {
    if (answered.has(call.id)) continue;
    let content: string;
    if (call.name === WAIT_FOR_CHANGE) {
      // The wait ends the turn's use of its slot: it is answered when the run continues.
      const planned: ChangeWaitPlan | string =
        question === null && pause === null
          ? await planWait(env.tools, call)
          : JSON.stringify({ error: { code: 'INVALID_ARGUMENTS', message: 'Pause once per turn.' } });
      if (typeof planned !== 'string') {
        pause = { call, plan: planned };
        continue;
      }
      content = planned;
    } else if (call.name === ASK_CLARIFICATION) {
      const text = parseArguments(call)?.question;
      if (question === null && typeof text === 'string' && text.trim() !== '') {
        question = { call, text: text.trim() };
        continue;
      }
      content = JSON.stringify({
        error: {
          code: 'INVALID_ARGUMENTS',
          message:
            question === null ? 'ask_clarification needs a non-blank "question".' : 'Ask one question at a time.',
        },
      });
    } else {
      if (env.signal.aborted) return { wrote: step > firstStep, ask: { state: 'cancelled' } };
      content = await executeMemberTool(call, env.tools, env.runKey);
    }
    const draft: MessageDraft = { role: 'tool', content, toolCalls: null, toolCallId: call.id, toolName: call.name };
    if (!(await append(env, step, [draft], null))) return null;
    step += 1;
  }
  if (question !== null) {
    const input = {
      kind: InputKind.CLARIFICATION,
      requestId: callKey(env.runKey, question.call.id),
      question: truncateUtf8(question.text, Limits.questionBytes).text,
    };
    return { wrote: step > firstStep, ask: { state: 'waiting', input, toolCallId: question.call.id } };
  }
  if (pause !== null) {
    const wait = { ...pause.plan, requestId: callKey(env.runKey, pause.call.id) };
    return { wrote: step > firstStep, ask: { state: 'waiting_change', wait, toolCallId: pause.call.id } };
  }
  return { wrote: step > firstStep, ask: null };
}

/** The tool that pauses a turn until the team changes (handled by the runtime with `planWait`). */
export const WAIT_FOR_CHANGE = 'wait_for_change';

/** Calls the model with the context window and persists its answer with the call's usage. */
async function askModel(env: TurnEnv, messages: readonly PersistedMessage[]): Promise<RunOutcome | 'continue' | null> {
  const { settings } = env;
  const rounds = messages.filter((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0).length;
  const toolsAllowed = rounds < settings.maxToolRounds;
  const history = await env.store.history(env.conversationId, HISTORY_LIMIT);
  // Lost calls of this turn, an earlier run's too (before a person's answer or a wake-up).
  if (lostToolCalls(history)) return TOOL_CALLS_LOST;
  const window = buildContextWindow(
    systemPrompt(settings.systemPrompt, env.memberName, env.memberRole, env.memberIsLead),
    history,
    settings.maxContextTokens,
    env.store.keepsHistory,
    settings.historyTeamContext,
  );
  // Also says whether a final answer's write may wait for the job write (decision 0221): only when no
  // reservation waits for it (`reserveCall`), since a reservation is released once the usage is committed.
  const estimate = promptEstimate(window.estimatedTokens, toolsAllowed);
  const held = await reserveCall(env.spend, env, estimate);
  if (!held.ok) return { state: 'failed', error: held.message, code: JobErrorCode.BUDGET_EXHAUSTED };
  try {
    const taken = takenToolCallIds(history, messages);
    return await callAndRecord(env, messages.length, window.messages, estimate, toolsAllowed, taken, held);
  } finally {
    // After the usage is recorded (or the call failed): the budget never counts neither.
    await held.release();
  }
}

/** Calls the model and persists its answer with the call's usage (`promptTokens`: its estimated input). */
async function callAndRecord(
  env: TurnEnv,
  step: number,
  prompt: ChatCompletionMessageParam[],
  promptTokens: number,
  toolsAllowed: boolean,
  taken: ReadonlySet<string>,
  held: HeldCall,
): Promise<RunOutcome | 'continue' | null> {
  const { settings } = env;
  const idPrefix = fallbackToolCallPrefix(env.runId, step);
  let answer: Awaited<ReturnType<typeof callModel>>;
  try {
    answer = await callModel({
      endpoint: env.endpoint,
      body: {
        model: settings.model,
        messages: prompt,
        max_tokens: settings.maxOutputTokens,
        ...(settings.maxToolRounds > 0
          ? { tools: toolsFor(env.memberIsLead), tool_choice: toolsAllowed ? 'auto' : 'none' }
          : {}),
        ...(settings.temperature === null ? {} : { temperature: settings.temperature }),
      },
      stream: settings.stream,
      keepMessages: env.store.keepsHistory,
      signal: env.signal,
      deadlineMs: env.deadlineMs,
      nowMs: env.nowMs,
      retryBaseMs: env.retryBaseMs,
      sleep: env.sleep,
      progress: env.progress,
      idPrefix,
      spent: recordFailedAttempt(env, step, promptTokens),
      retrying: logRetry(env, step),
      ...(held.again ? { beforeRetry: held.again } : {}),
      turn: env,
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'ModelCallError') {
      const { kind, code } = error as ModelCallError;
      if (kind === 'aborted') return cancelledCall(env, step, promptTokens, error as ModelCallError);
      // A failed call's billed attempts were recorded as they failed (`spent` above).
      if (kind === 'failed') return { state: 'failed', error: error.message, ...(code ? { code } : {}) };
    }
    throw error;
  }
  // Past the round limit, calls are not executed. A reused id would share its first call's idempotency key.
  const wanted = toolsAllowed ? distinctToolCallIds(answer.toolCalls, taken, idPrefix) : [];
  // A cut or filtered answer's calls are stored as none: never run, nor left unanswered in history.
  const verdict = judgeFinish(answer, wanted.length > 0, settings.maxOutputTokens);
  const toolCalls = verdict.error === null ? wanted : [];
  const draft: MessageDraft = {
    role: 'assistant',
    content: verdict.content,
    toolCalls: toolCalls.length > 0 ? toolCalls : null,
    toolCallId: null,
    toolName: null,
  };
  const usage = answerUsage(env, step, answer.usage);
  const refused: RunOutcome | null =
    verdict.error !== null
      ? { state: 'failed', error: verdict.error }
      : !toolsAllowed && answer.toolCalls.length > 0 && answer.content.trim() === ''
        ? {
            state: 'failed',
            error: `The model still called tools after ${settings.maxToolRounds} rounds (maxToolRounds) and gave no answer.`,
          }
        : null;
  // An answer without calls to run ends the turn: the same outcome the next pass would read back.
  const ends =
    refused ??
    (toolCalls.length === 0 ? { state: 'completed' as const, answer: verdict.content || EMPTY_ANSWER } : null);
  if (env.finish && ends) env.finish.outcome = ends;
  // Lost to another execution of the run, which wrote this step: this call was billed all the same.
  if (!(await append(env, step, [draft], usage, ends ? env.finish : undefined))) return recordLostAnswer(env, usage);
  if (ends && (env.finish?.recorded || env.finish?.ridden)) return ends;
  if (refused) return refused;
  return 'continue';
}

function append(
  env: TurnEnv,
  firstStep: number,
  messages: readonly MessageDraft[],
  usage: Parameters<OpenAiRunStore['appendStep']>[0]['usage'],
  finish?: TurnFinish,
): Promise<boolean> {
  return env.store.appendStep({
    runId: env.runId,
    conversationId: env.conversationId,
    jobId: env.jobId,
    firstStep,
    messages,
    usage,
    now: env.now(),
    finish: finish ?? null,
  });
}
