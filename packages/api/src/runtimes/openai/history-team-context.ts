import type { StoredMessage } from './context-window.js';
import { withoutTeamContext } from './turn-prompt.js';

/**
 * Which turn messages of a member's history send the team context they froze (the agent setting
 * `historyTeamContext`, decision 0242): `latest`, only the newest one that carries one (the
 * default); `every`, each as stored (every call then extends the last one, which suits a provider
 * that caches prompt prefixes and bills cached tokens at a small fraction).
 */
export type HistoryTeamContext = 'latest' | 'every';

/** The setting's values, as the agent's JSON spells them. */
export const HISTORY_TEAM_CONTEXT_VALUES: readonly HistoryTeamContext[] = ['latest', 'every'];

/** Added to the system prompt when a turn went without its team context. */
export const WITHOUT_CONTEXT_NOTE =
  '\n\n(Older turns are shown without the team_context they carried. read_team_context reads the team ' +
  'as it is now, read_team_history its shared record.)';

/** Estimated tokens of {@link WITHOUT_CONTEXT_NOTE} (its bytes / 4, as `estimateTokens` counts). */
export const WITHOUT_CONTEXT_NOTE_TOKENS = Math.ceil(Buffer.byteLength(WITHOUT_CONTEXT_NOTE, 'utf8') / 4);

/** What an earlier turn sends, and what it may send instead when that does not fit the window. */
export interface PickedTurn {
  /** The turn to send: the stored array itself when it goes as stored. */
  readonly turn: StoredMessage[];
  /** The same turn without its team context, when `turn` keeps one and this shorter one may go instead. */
  readonly shorter: StoredMessage[] | null;
}

/**
 * Picks, turn by turn from the newest earlier one back, what each sends: with `latest`, the
 * newest turn message that carries a team context keeps it (the current turn's, or, when the
 * current turn carries none, as a turn of delivered team messages or an answer does, the newest
 * earlier turn's), and every older one goes without it.
 */
export function earlierTurns(
  policy: HistoryTeamContext,
  current: readonly StoredMessage[],
  keep: boolean,
): (turn: StoredMessage[]) => PickedTurn {
  if (policy === 'every') return (turn) => ({ turn, shorter: null });
  const first = current[0];
  let shown = first !== undefined && leanMessage(first, keep) !== first;
  return (turn) => {
    const stored = turn[0];
    if (stored === undefined) return { turn, shorter: null };
    const lean = leanMessage(stored, keep);
    if (lean === stored) return { turn, shorter: null };
    const shorter = [lean, ...turn.slice(1)];
    if (shown) return { turn: shorter, shorter: null };
    shown = true;
    return { turn, shorter };
  };
}

/** Each stored user message without its team context, built once when the history is kept. */
const LEAN = new WeakMap<StoredMessage, StoredMessage>();

/** `message` without the team context its turn message froze, or `message` itself when it has none. */
function leanMessage(message: StoredMessage, keep: boolean): StoredMessage {
  if (message.role !== 'user' || message.content === null) return message;
  let lean = keep ? LEAN.get(message) : undefined;
  if (lean === undefined) {
    const content = withoutTeamContext(message.content);
    // The same object when nothing changed: its kept request message and bytes stay shared.
    lean = content === message.content ? message : { ...message, content };
    if (keep) LEAN.set(message, lean);
  }
  return lean;
}
