import { type Accessor, createSignal, type Setter } from 'solid-js';

/** An answer being written, kept by the card so it outlives the form (the job may stop waiting meanwhile). */
export interface AnswerDraft {
  readonly text: Accessor<string>;
  readonly setText: Setter<string>;
  /** The `requestId` of the question the person began answering; null while the box is empty. */
  pinned: string | null;
}

/** An empty draft. */
export function createAnswerDraft(): AnswerDraft {
  const [text, setText] = createSignal('');
  return { text, setText, pinned: null };
}
