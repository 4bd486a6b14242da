import { JobErrorCode, type JobId, type TeamId } from '@agent-teams/core';
import type { HeldSpend, SpendGuard } from '../spend-guard.js';
import { MEMBER_TOOLS } from './member-tools.js';
import { ModelCallError } from './model-call-error.js';
import { type OpenAiSettings, reservedCost } from './openai-settings.js';

/** Estimated tokens of the tool definitions sent with a call that allows tools (UTF-8 bytes / 4). */
const TOOLS_TOKENS = Math.ceil(new TextEncoder().encode(JSON.stringify(MEMBER_TOOLS)).length / 4);

/**
 * A call's estimated input tokens: the context window's estimate plus the tool definitions when
 * the call offers tools. What {@link reserveCall} holds, and what a cancelled call is counted at.
 */
export function promptEstimate(promptTokens: number, toolsAllowed: boolean): number {
  return promptTokens + (toolsAllowed ? TOOLS_TOKENS : 0);
}

const NOTHING_HELD: HeldSpend = { ok: true, reserved: false, release: async () => undefined };

/**
 * Reserves what one model call may spend before it is made: the prompt's estimated tokens (the
 * context window's estimate, plus the tool definitions) and the whole output allowance
 * (`maxOutputTokens`, also sent as `max_tokens`), priced with the agent's `pricing` (its input
 * at the dearer of the input and cached prices: `reservedCost`).
 *
 * @remarks The estimate is UTF-8 bytes / 4; a prompt that tokenizes denser than that is the only
 * way a budget is passed, and by at most that one call's difference.
 */
export function reserveCall(
  spend: SpendGuard | null,
  call: ReservingCall,
  promptTokens: number,
  toolsAllowed: boolean,
): Promise<HeldSpend> {
  if (spend === null) return Promise.resolve(NOTHING_HELD);
  return reserveEstimate(spend, call, promptEstimate(promptTokens, toolsAllowed));
}

/** The call a reservation is for: its team, its job (the reservation's id) and its settings. */
type ReservingCall = { readonly teamId: TeamId; readonly jobId: JobId; readonly settings: OpenAiSettings };

/** Reserves a call's estimated `input` tokens (tool definitions included) and its output allowance. */
function reserveEstimate(spend: SpendGuard, call: ReservingCall, input: number): Promise<HeldSpend> {
  const output = call.settings.maxOutputTokens;
  return spend.reserve({
    teamId: call.teamId,
    jobId: call.jobId,
    tokens: input + output,
    cost: reservedCost(call.settings.pricing, input, output),
  });
}

/**
 * `ModelCall.beforeRetry` for a call whose refused attempt was billed: reserves the call again
 * (under the job's one reservation id, so it replaces the one held), which checks the budgets
 * with that attempt's usage now recorded.
 *
 * @remarks Without it a call whose refusals the provider billed retried on its first reservation
 * alone, and could pass a budget by more than the one call the budgets promise.
 * @throws ModelCallError `failed` with BUDGET_EXHAUSTED when the budget no longer holds the call.
 */
export function reserveAgain(spend: SpendGuard, call: ReservingCall, input: number): () => Promise<void> {
  return async () => {
    const held = await reserveEstimate(spend, call, input);
    if (!held.ok) throw new ModelCallError('failed', held.message, { code: JobErrorCode.BUDGET_EXHAUSTED });
  };
}
