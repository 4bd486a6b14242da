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

/**
 * A call's reservation, held until its usage is recorded. `again` (absent without a spend guard)
 * is `ModelCall.beforeRetry` for a call whose refused attempt was billed: it reserves the call
 * again (under the job's one reservation id, so it replaces the one held), which checks the
 * budgets with that attempt's usage now recorded, and throws a `ModelCallError` `failed` with
 * BUDGET_EXHAUSTED when they no longer hold the call.
 *
 * @remarks Without `again` a call whose refusals the provider billed retried on its first
 * reservation alone, and could pass a budget by more than the one call the budgets promise. A
 * call whose first reservation found no budget (one set while it was retried) takes the release
 * of the row `again` wrote: before, nothing released it and it held the budget for an hour.
 */
export type HeldCall = Extract<HeldSpend, { ok: true }> & { readonly again?: () => Promise<void> };

const NOTHING_HELD: HeldCall = { ok: true, reserved: false, release: async () => undefined };

/**
 * Reserves what one model call may spend before it is made: the prompt's estimated tokens
 * (`input`, {@link promptEstimate}: the context window's estimate plus the tool definitions) and
 * the whole output allowance
 * (`maxOutputTokens`, also sent as `max_tokens`), priced with the agent's `pricing` (its input
 * at the dearer of the input and cached prices: `reservedCost`). Sets the turn's `mayRide` (a
 * final answer waits for the job write only while no reservation waits for its usage).
 *
 * @remarks The estimate is UTF-8 bytes / 4; a prompt that tokenizes denser than that is the only
 * way a budget is passed, and by at most that one call's difference.
 */
export async function reserveCall(
  spend: SpendGuard | null,
  call: ReservingCall,
  input: number,
): Promise<HeldCall | { readonly ok: false; readonly message: string }> {
  if (call.finish) call.finish.mayRide = true;
  if (spend === null) return NOTHING_HELD;
  const first = await reserveEstimate(spend, call, input);
  if (!first.ok) return first;
  let held: Extract<HeldSpend, { ok: true }> = first;
  const hold = (next: Extract<HeldSpend, { ok: true }>) => {
    // A call reserved once stays held by its first release: every reservation of the job has the
    // same id and holder. One that first found no budget takes the release of the row now written.
    if (!held.reserved) held = next;
    if (held.reserved && call.finish) call.finish.mayRide = false;
  };
  hold(first);
  return {
    ok: true,
    get reserved() {
      return held.reserved;
    },
    release: () => held.release(),
    again: async () => {
      const next = await reserveEstimate(spend, call, input);
      if (!next.ok) throw new ModelCallError('failed', next.message, { code: JobErrorCode.BUDGET_EXHAUSTED });
      hold(next);
    },
  };
}

/** The call a reservation is for: its team, its job (the reservation's id) and its settings. */
type ReservingCall = {
  readonly teamId: TeamId;
  readonly jobId: JobId;
  readonly settings: OpenAiSettings;
  readonly finish?: { mayRide?: boolean } | undefined;
};

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
