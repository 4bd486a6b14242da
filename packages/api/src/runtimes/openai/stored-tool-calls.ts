import { JobErrorCode } from '@agent-teams/core';
import { readStoredShape } from '../../storage/stored-json.js';
import type { ToolCall } from './member-tools.js';
import type { PersistedMessage } from './openai-run-store.js';
import type { RunOutcome } from './run-outcome.js';

const isToolCall = (value: unknown): value is ToolCall => {
  if (typeof value !== 'object' || value === null) return false;
  const call = value as Record<string, unknown>;
  return typeof call.id === 'string' && typeof call.name === 'string' && typeof call.arguments === 'string';
};

const isToolCallList = (value: unknown): value is ToolCall[] => Array.isArray(value) && value.every(isToolCall);

/**
 * A model message's stored tool calls (`openai_messages.tool_calls_json`), or null when they are
 * lost: the text does not parse, or is not a list of calls each with a string `id`, `name` and
 * `arguments` (reported once, as `readStoredJson` does). A member's whole history is read for
 * every model call, so a value that threw would fail each of that member's later turns for good
 * (decision 0245).
 */
export function readStoredToolCalls(id: string, text: string): ToolCall[] | null {
  const at = { table: 'openai_messages', column: 'tool_calls_json', id, readAs: 'no calls' };
  return readStoredShape(at, text, isToolCallList, 'is not a list of tool calls');
}

/** How a run ends whose turn lost its tool calls (see {@link lostToolCalls}). */
export const TOOL_CALLS_LOST: RunOutcome = Object.freeze({
  state: 'failed',
  error: 'The run lost its tool calls (a stored value no longer reads); it cannot continue.',
  code: JobErrorCode.STATE_LOST,
});

/**
 * True when a model message of the current turn (after the newest user message) lost its tool
 * calls. An earlier turn goes on without them (the results that then answer no call are dropped
 * from the request: `toTurns`); the current one cannot: its last answer would read as the final
 * one, and the model, not seeing what it already called, could make the same calls again.
 */
export function lostToolCalls(messages: readonly PersistedMessage[]): boolean {
  // Newest first, only as far as the turn goes: every model call asks this of the whole history.
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as PersistedMessage;
    if (message.role === 'user') return false;
    if (message.toolCallsLost === true) return true;
  }
  return false;
}
