import type { JobId, TeamId } from '@agent-teams/core';
import type { HeldSpend, SpendGuard } from '../spend-guard.js';
import { MEMBER_TOOLS } from './member-tools.js';
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
  call: { readonly teamId: TeamId; readonly jobId: JobId; readonly settings: OpenAiSettings },
  promptTokens: number,
  toolsAllowed: boolean,
): Promise<HeldSpend> {
  if (spend === null) return Promise.resolve(NOTHING_HELD);
  const input = promptEstimate(promptTokens, toolsAllowed);
  const output = call.settings.maxOutputTokens;
  return spend.reserve({
    teamId: call.teamId,
    jobId: call.jobId,
    tokens: input + output,
    cost: reservedCost(call.settings.pricing, input, output),
  });
}
