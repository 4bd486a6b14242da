import { createSignal } from 'solid-js';
import type { Api } from './api.js';

/**
 * The widget's status line: the last action's error, until the next action replaces or clears it.
 *
 * @remarks A NETWORK failure says the server could not be reached, which stops being true once it
 * is heard from again; so that message clears itself when a query or mutation sent after it is
 * answered, or when the socket is acknowledged (the live feed reconnected). Any other message (a
 * GraphQL error with its code, a draft problem) stays until the next action, as before.
 * Callers pass only the sentence they show, so a NETWORK failure is recognised by comparing it
 * with `network()`, that sentence in the strings in use. Answers to requests sent before the
 * failure do not count: they say nothing about the server since.
 */
export function createStatusLine(api: Pick<Api, 'sent' | 'onReachable'>, network: () => string | undefined) {
  const [message, setMessage] = createSignal('');
  // The operations sent when the NETWORK message was shown; null while something else is shown.
  let mark: number | null = null;
  api.onReachable((sent) => {
    if (mark === null || sent <= mark) return;
    mark = null;
    setMessage('');
  });
  return {
    message,
    /** Shows `text` (empty string clears the line). */
    show(text: string) {
      mark = text === network() ? api.sent() : null;
      setMessage(text);
    },
  };
}
