import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { InputKind, type JobView } from '@agent-teams/core';

/** The text parts of a message, joined by newlines; null when it has none. */
function textOf(message: Message): string | null {
  const texts = message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
  return texts.length === 0 ? null : texts.join('\n');
}

/**
 * The task text of a message that starts a request: its text parts. The core checks the text's
 * rules (length, blank, unstorable characters); a message without text is malformed here.
 */
export function requestTextOf(message: Message): string {
  const text = textOf(message);
  if (text === null) throw new RequestMalformedError('The message needs a text part: the task for the member.');
  return text;
}

/**
 * The answer a message carries for a job that asks: its text for a clarification; for an
 * interrupt, the value of its first data part (or its text). The question id the client saw,
 * when it echoes `metadata.agentTeams.inputRequestId` of the status message, lets the core
 * refuse an answer to a question that changed (INPUT_CHANGED).
 */
export function answerOf(message: Message, job: JobView): { value: unknown; inputRequestId: string | null } {
  const echoed = (message.metadata?.agentTeams as { inputRequestId?: unknown } | undefined)?.inputRequestId;
  const inputRequestId = typeof echoed === 'string' ? echoed : null;
  const data = message.parts.find((part) => part.content?.$case === 'data')?.content;
  if (job.pendingInput?.kind === InputKind.INTERRUPT && data?.$case === 'data') {
    return { value: data.value, inputRequestId };
  }
  const text = textOf(message);
  if (text === null) throw new RequestMalformedError('The answer needs a text part.');
  return { value: text, inputRequestId };
}
