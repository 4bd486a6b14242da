import { type Accessor, createSignal, type Setter } from 'solid-js';

/** An answer being written, kept by the card so it outlives the form (the job may stop waiting meanwhile). */
export interface AnswerDraft {
  readonly text: Accessor<string>;
  readonly setText: Setter<string>;
  /** The `requestId` of the question the person began answering; null while the box is empty. */
  pinned: string | null;
}

/** Drafts by key: switching teams makes the cards anew, and what was typed must outlive that too. */
const kept = new Map<string, AnswerDraft>();

/** The draft kept under `key` (a card's question), or an empty one; a new empty one without a key. */
export function createAnswerDraft(key?: string): AnswerDraft {
  const found = key === undefined ? undefined : kept.get(key);
  if (found) return found;
  const [text, setText] = createSignal('');
  const draft: AnswerDraft = { text, setText, pinned: null };
  if (key !== undefined) kept.set(key, draft);
  return draft;
}
