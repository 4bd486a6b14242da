import { randomUUID } from 'node:crypto';
import type { UsageEntry } from '@agent-teams/core';
import type { CutShortCall, ModelCallError } from './chat-call.js';
import type { RunOutcome } from './openai-run-store.js';
import { callCost } from './openai-settings.js';
import type { TokenUsage } from './provider-usage.js';
import type { TurnEnv } from './turn-loop.js';

/** What a usage row is written from: the turn's run, team, job, conversation and agent settings. */
export type UsageEnv = Pick<TurnEnv, 'runId' | 'teamId' | 'jobId' | 'conversationId' | 'settings'>;

const NO_TOKENS: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/**
 * The usage row of the call answered at `step`, as the provider reported it (zeros without a
 * report). Its id is the step's, so the answer's write records it once however often it is retried.
 */
export function answerUsage(env: UsageEnv, step: number, usage: TokenUsage | null): UsageEntry {
  return usageEntry(env, `usage_${env.runId}_${step}`, usage ?? NO_TOKENS);
}

/**
 * The usage row of a call cancelled after its request was sent: the provider's own numbers when
 * it reported them before the abort, else an estimate: the prompt at the reservation's estimate
 * (`promptTokens`, `promptEstimate`) and the output received so far at UTF-8 bytes / 4 (at most
 * the call's `maxOutputTokens`, which the provider cannot pass).
 *
 * @remarks The id is the call's own (random), never the step's: the run's replay (after a
 * restart) asks the provider again at that step, a new call with its own bill, whose answer row
 * must not be taken for this one. The row is built once per call, so a retried write reuses it.
 */
export function cutShortUsage(env: UsageEnv, step: number, promptTokens: number, cut: CutShortCall): UsageEntry {
  const tokens = cut.usage ?? {
    inputTokens: promptTokens,
    cachedInputTokens: 0,
    outputTokens: Math.min(Math.ceil(cut.outputBytes / 4), env.settings.maxOutputTokens),
  };
  return usageEntry(env, `usage_${env.runId}_${step}_cancelled_${randomUUID()}`, tokens);
}

/**
 * The outcome of a call the run cancelled (a person's cancel, a lead's interrupt, the turn's
 * deadline, a stopping server), its spend recorded first when its request had gone out: the
 * provider bills what it was sent and what it streamed, cancelled or not, and a budget that did
 * not count it could be passed by cancelling each call just before its answer ends.
 *
 * @remarks Called while the call's reservation is still held (`askModel` releases it after), so
 * the budget never counts neither.
 */
export async function cancelledCall(
  env: TurnEnv,
  step: number,
  promptTokens: number,
  error: ModelCallError,
): Promise<RunOutcome> {
  const cut = error.cutShort;
  if (cut) await env.store.recordUsage(cutShortUsage(env, step, promptTokens, cut), env.now());
  return { state: 'cancelled' };
}

function usageEntry(env: UsageEnv, id: string, tokens: TokenUsage): UsageEntry {
  const { inputTokens, cachedInputTokens, outputTokens } = tokens;
  return {
    id,
    teamId: env.teamId,
    jobId: env.jobId,
    conversationId: env.conversationId,
    model: env.settings.model,
    inputTokens,
    cachedInputTokens,
    outputTokens,
    cost: callCost(env.settings.pricing, inputTokens, outputTokens, cachedInputTokens),
  };
}
