import { randomUUID } from 'node:crypto';
import type { UsageEntry } from '@agent-teams/core';
import type { CutShortCall, ModelCallError } from './model-call-error.js';
import type { RunOutcome } from './openai-run-store.js';
import { callCost } from './openai-settings.js';
import type { TokenUsage } from './provider-usage.js';
import type { TurnEnv } from './turn-loop.js';

/** What a usage row is written from: the turn's run, team, job, conversation and agent settings. */
export type UsageEnv = Pick<TurnEnv, 'runId' | 'teamId' | 'jobId' | 'conversationId' | 'settings'>;

const NO_TOKENS: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/**
 * The usage row of the call answered at `step`, as the provider reported it (zeros without a
 * report). Its id is the call's own (the step's and a random part), made once per answer, so the
 * answer's write records it once however often it is retried, and another execution's call at
 * the same step (a replay racing this one after a takeover) is a row of its own: each was billed.
 */
export function answerUsage(env: UsageEnv, step: number, usage: TokenUsage | null): UsageEntry {
  return usageEntry(env, `usage_${env.runId}_${step}_${randomUUID()}`, usage ?? NO_TOKENS);
}

/**
 * Records the usage of an answer whose step another execution of the run wrote first (a server
 * paused past its lease wakes to find the step written by the server that took the job over),
 * alone: the step and its outcome are the other execution's, but the provider billed this call
 * too, and budgets that did not count it would miss one billed call per such takeover.
 * Idempotent by the entry's id (`insertUsage`), so when the step "lost" was this call's own
 * write, committed before an error hid it, the row is not counted twice. A row the database
 * refuses is logged, never thrown: the run is the other execution's now, and this one only stops.
 * Resolves null (lost).
 */
export async function recordLostAnswer(env: UsageWriter, entry: UsageEntry): Promise<null> {
  await recordAlone(env, entry);
  return null;
}

/** What writes a usage row alone and logs a refusal: the store, the logger and the turn's ids and clock. */
export type UsageWriter = Pick<TurnEnv, 'store' | 'logger' | 'runId' | 'jobId' | 'now'>;

/** Writes `entry` in a transaction of its own; a refusal (after the store's own retries) is logged, not thrown. */
async function recordAlone(env: UsageWriter, entry: UsageEntry): Promise<void> {
  try {
    await env.store.recordUsage(entry, env.now());
  } catch (error) {
    const fields = { runId: env.runId, jobId: env.jobId, usageId: entry.id, error: String(error) };
    env.logger.error('openai call usage could not be recorded', fields);
  }
}

/**
 * The usage row of a call cancelled after its request was sent (`why`: `cancelled`), or of an
 * attempt that ended without an answer the provider billed (`failed`: its answer began and then
 * broke off, was malformed, carried an error event or ended early; a refusal it reported usage
 * for; or a request whose answer had not begun by the turn deadline): the provider's own numbers
 * when it reported them, else an estimate: the prompt at the reservation's estimate
 * (`promptTokens`, `promptEstimate`) and the output received so far at UTF-8 bytes / 4 (at most
 * the call's `maxOutputTokens`, which the provider cannot pass).
 *
 * @remarks The id is the attempt's own (random), never the step's: the run's replay (after a
 * restart) asks the provider again at that step, a new call with its own bill, whose answer row
 * must not be taken for this one, and each retried attempt is billed on its own. The row is built
 * once per attempt, so a retried write reuses it (the insert ignores an id it already holds).
 */
export function cutShortUsage(
  env: UsageEnv,
  step: number,
  promptTokens: number,
  cut: CutShortCall,
  why: 'cancelled' | 'failed' = 'cancelled',
): UsageEntry {
  const tokens = cut.usage ?? {
    inputTokens: promptTokens,
    cachedInputTokens: 0,
    outputTokens: Math.min(Math.ceil(cut.outputBytes / 4), env.settings.maxOutputTokens),
  };
  return usageEntry(env, `usage_${env.runId}_${step}_${why}_${randomUUID()}`, tokens);
}

/**
 * What the call at `step` hands the spend of each billed attempt that ended without an answer
 * (`ModelCall.spent`): its row, written at once. Without it a failed stream's tokens, which the
 * provider bills, would be invisible to budgets, and its reservation released as if unspent.
 *
 * @remarks Called while the call's reservation is still held, as {@link cancelledCall}. A row the
 * database refuses (after the store's own retries) is logged, never thrown: it would leave the
 * call from inside its retry loop, so a refusal the provider reported usage for would not be
 * retried and a cut answer would lose its message, both failing as an unexpected error.
 */
export function recordFailedAttempt(
  env: TurnEnv,
  step: number,
  promptTokens: number,
): (cut: CutShortCall) => Promise<void> {
  return (cut) => recordAlone(env, cutShortUsage(env, step, promptTokens, cut, 'failed'));
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
