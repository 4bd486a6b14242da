import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  earlierTurns,
  type HistoryTeamContext,
  WITHOUT_CONTEXT_NOTE,
  WITHOUT_CONTEXT_NOTE_TOKENS,
} from './history-team-context.js';
import type { ToolCall } from './member-tools.js';
import { wireToolCallId } from './tool-call-ids.js';

/** A message of the persisted conversation, in the provider's shape. */
export interface StoredMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string | null;
  /** Assistant only: the tool calls it made. */
  readonly toolCalls: readonly ToolCall[] | null;
  /** Tool only: the call it answers. */
  readonly toolCallId: string | null;
  /** Assistant only: its stored tool calls no longer read (`toolCalls` is null): `stored-tool-calls.ts`. */
  readonly toolCallsLost?: true;
}

/** The request messages and what the policy left out. */
export interface ContextWindow {
  readonly messages: ChatCompletionMessageParam[];
  /** Whole earlier turns left out. */
  readonly droppedTurns: number;
  /** Tool results of the current turn replaced by a stub. */
  readonly elidedToolResults: number;
  /** Estimated tokens of what is sent. */
  readonly estimatedTokens: number;
}

/** Answer given for a tool call that never ran (its turn was cancelled, failed or timed out). */
export const NOT_EXECUTED = JSON.stringify({
  error: { code: 'NOT_EXECUTED', message: 'The turn ended before this call ran.' },
});
/** Replaces an older tool result of the current turn when the turn alone exceeds the budget. */
export const ELIDED = JSON.stringify({
  elided: true,
  message: 'This tool result was removed to fit the context window; call the tool again if you need it.',
});

/**
 * Estimated tokens of a message: UTF-8 bytes / 4 (a common rule of thumb), plus 4 per message.
 * `Buffer.byteLength` counts the bytes without encoding them (a lone surrogate counts as the 3
 * bytes of U+FFFD, as `TextEncoder` would write it); every model call estimates the whole history.
 */
export function estimateTokens(message: StoredMessage): number {
  let bytes = Buffer.byteLength(message.content ?? '', 'utf8');
  for (const call of message.toolCalls ?? []) bytes += Buffer.byteLength(call.name + call.arguments, 'utf8') + 16;
  return Math.ceil(bytes / 4) + 4;
}

/** What a model answer says when its stored tool calls no longer read and it had no text. */
export const LOST_CALLS_TEXT = '(The tool calls of this answer are no longer on record.)';

/** Per lost answer, its stand-in (kept, so the request body's kept bytes still apply). */
const LOST_ANSWERS = new WeakMap<StoredMessage, StoredMessage>();

function lostCallsAnswer(message: StoredMessage): StoredMessage {
  let answer = LOST_ANSWERS.get(message);
  if (answer === undefined) {
    answer = { role: 'assistant', content: LOST_CALLS_TEXT, toolCalls: null, toolCallId: null };
    LOST_ANSWERS.set(message, answer);
  }
  return answer;
}

/** Per later answer, the one message it and the answer before it go as (kept, as above). */
const JOINED_ANSWERS = new WeakMap<
  StoredMessage,
  { readonly earlier: StoredMessage; readonly joined: StoredMessage }
>();

/**
 * One assistant message for an answer without tool calls and the answer after it: the earlier
 * text, a blank line, then the later answer's text and calls.
 */
function joinedAnswers(earlier: StoredMessage, later: StoredMessage): StoredMessage {
  const known = JOINED_ANSWERS.get(later);
  if (known !== undefined && known.earlier === earlier) return known.joined;
  const texts = [earlier.content ?? '', later.content ?? ''].filter((text) => text !== '');
  const joined: StoredMessage = {
    role: 'assistant',
    content: texts.join('\n\n'),
    toolCalls: later.toolCalls,
    toolCallId: null,
  };
  JOINED_ANSWERS.set(later, { earlier, joined });
  return joined;
}

/**
 * Splits a conversation into turns (each starts at a user message) and makes every turn valid for
 * the provider: each tool call gets exactly one answer right after its assistant message (a call
 * left unanswered by an ended turn gets {@link NOT_EXECUTED}); tool messages answering no call are
 * dropped. Messages before the first user message (a cut-off history) are dropped. A model answer
 * that lost its tool calls has no results after it (they answer calls no longer on record), so
 * the answer after it goes joined to it in one message ({@link joinedAnswers}); without text of
 * its own it says {@link LOST_CALLS_TEXT}. Two messages of one role side by side are refused by
 * providers that want roles to alternate.
 */
export function toTurns(history: readonly StoredMessage[]): StoredMessage[][] {
  const turns: StoredMessage[][] = [];
  let pending: { calls: readonly ToolCall[]; answered: Set<string> } | null = null;
  const closePending = (turn: StoredMessage[]): void => {
    if (pending === null) return;
    for (const call of pending.calls) {
      if (!pending.answered.has(call.id)) {
        turn.push({ role: 'tool', content: NOT_EXECUTED, toolCalls: null, toolCallId: call.id });
      }
    }
    pending = null;
  };
  for (const message of history) {
    const turn = turns[turns.length - 1];
    if (message.role === 'user') {
      if (turn) closePending(turn);
      turns.push([message]);
      continue;
    }
    if (!turn) continue;
    if (message.role === 'tool') {
      const open: { calls: readonly ToolCall[]; answered: Set<string> } | null = pending;
      if (open === null || message.toolCallId === null) continue;
      if (!open.calls.some((call) => call.id === message.toolCallId) || open.answered.has(message.toolCallId)) continue;
      open.answered.add(message.toolCallId);
      turn.push(message);
      continue;
    }
    closePending(turn);
    const answer =
      message.toolCallsLost === true && (message.content ?? '') === '' ? lostCallsAnswer(message) : message;
    const previous = turn[turn.length - 1];
    if (previous?.role === 'assistant' && (previous.toolCalls?.length ?? 0) === 0) {
      turn[turn.length - 1] = joinedAnswers(previous, answer);
    } else {
      turn.push(answer);
    }
    if (message.toolCalls && message.toolCalls.length > 0) pending = { calls: message.toolCalls, answered: new Set() };
  }
  const last = turns[turns.length - 1];
  if (last) closePending(last);
  return turns;
}

/**
 * The context policy: which part of a member's conversation goes with a model call.
 *
 * 1. The system prompt and the whole current turn (from its user message to now) always go.
 * 2. Earlier turns are added newest first, whole, while the estimate stays within `maxTokens`;
 *    the first that does not fit ends the history (no gaps). Whole turns keep every tool call
 *    paired with its result. The system prompt then says how many turns were left out and that
 *    the team's shared record can be read with the history tools.
 * 3. If the current turn alone is over budget, its older tool results (all but the latest round)
 *    are replaced, oldest first, by {@link ELIDED} until it fits or none is left.
 * 4. With `teamContext` `latest` (decision 0242), only the newest turn message that carries a
 *    team context sends it; older ones go without, counted as sent (so more turns fit), and the
 *    system prompt says so (its sentence counted with the first turn it shortens).
 *
 * @param keep the history's messages are the same objects from call to call: keep the request
 * message built for each (see {@link keptParam}).
 */
export function buildContextWindow(
  system: string,
  history: readonly StoredMessage[],
  maxTokens: number,
  keep = false,
  teamContext: HistoryTeamContext = 'latest',
): ContextWindow {
  const turns = toTurns(history);
  const current = turns.pop() ?? [];
  const systemTokens = Math.ceil(Buffer.byteLength(system, 'utf8') / 4) + 4;
  const total = (messages: readonly StoredMessage[]) => messages.reduce((sum, m) => sum + estimateTokens(m), 0);

  let elided = 0;
  const currentTurn = [...current];
  let used = systemTokens + total(currentTurn);
  const lastAssistant = currentTurn.map((m) => m.role).lastIndexOf('assistant');
  for (let i = 0; i < currentTurn.length && used > maxTokens; i += 1) {
    const message = currentTurn[i] as StoredMessage;
    if (message.role !== 'tool' || i > lastAssistant) continue;
    const replaced: StoredMessage = { ...message, content: ELIDED };
    used += estimateTokens(replaced) - estimateTokens(message);
    currentTurn[i] = replaced;
    elided += 1;
  }

  const kept: StoredMessage[][] = [];
  let withoutContext = false;
  const pick = earlierTurns(teamContext, current, keep);
  // The note is counted once, with the first turn it explains.
  const costOf = (turn: StoredMessage[], shortened: boolean) =>
    total(turn) + (shortened && !withoutContext ? WITHOUT_CONTEXT_NOTE_TOKENS : 0);
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const stored = turns[i] as StoredMessage[];
    const picked = pick(stored);
    let turn = picked.turn;
    let cost = costOf(turn, turn !== stored);
    // The newest context does not fit whole: the turn without it may, rather than no turn at all.
    if (used + cost > maxTokens && picked.shorter !== null) {
      turn = picked.shorter;
      cost = costOf(turn, true);
    }
    if (used + cost > maxTokens) break;
    used += cost;
    kept.unshift(turn);
    if (turn === stored) continue;
    withoutContext = true;
    if (keep) forgetParam(stored[0] as StoredMessage);
  }
  const droppedTurns = turns.length - kept.length;
  const note =
    (droppedTurns > 0
      ? `\n\n(${droppedTurns} earlier turn(s) of this conversation are not shown to fit the context window; ` +
        'read_team_history and search_team_results still reach what the team recorded.)'
      : '') + (withoutContext ? WITHOUT_CONTEXT_NOTE : '');
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: system + note },
    ...kept.flat().map(keep ? keptParam : toParam),
    ...currentTurn.map(keep ? keptParam : toParam),
  ];
  return { messages, droppedTurns, elidedToolResults: elided, estimatedTokens: used };
}

/**
 * The request message of each stored message, built once, when the caller's history hands the
 * same stored messages to every call (`keep`: the SQLite history cache does): the same objects go
 * out again and their JSON is reused (`request-body.ts`). Never changed once built. Without
 * `keep` (PostgreSQL reads new objects each call) nothing is kept: it would never be found again.
 */
const PARAMS = new WeakMap<StoredMessage, ChatCompletionMessageParam>();

/**
 * Drops the request message kept for `message`, which now goes without its team context for good:
 * a newer turn message carries one, and the history only grows (built again if it is ever sent
 * whole, as after a change of the agent's `historyTeamContext`).
 */
function forgetParam(message: StoredMessage): void {
  PARAMS.delete(message);
}

function keptParam(message: StoredMessage): ChatCompletionMessageParam {
  let param = PARAMS.get(message);
  if (param === undefined) {
    param = toParam(message);
    PARAMS.set(message, param);
  }
  return param;
}

function toParam(message: StoredMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: wireToolCallId(message.toolCallId ?? ''), content: message.content ?? '' };
    case 'assistant':
      return message.toolCalls && message.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: message.content === '' ? null : message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: wireToolCallId(call.id),
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: message.content ?? '' };
  }
}
