import { type Artifact, type Message, type Part, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import { InputKind, Limits, truncateUtf8 } from '@agent-teams/core';
import type { A2aOutcome } from './a2a-run-doc.js';

/** The answer of a completed task with no text in its artifacts or final message. */
export const EMPTY_REMOTE_ANSWER = 'The remote agent completed without a text answer.';

/** Where a remote task stands, as this runtime acts on it. */
export type RemoteVerdict =
  | { readonly kind: 'working'; readonly progress: string | null }
  | { readonly kind: 'final'; readonly outcome: A2aOutcome }
  | { readonly kind: 'completed' }
  | { readonly kind: 'auth'; readonly reason: string };

/** The text parts of `parts`, joined by newlines. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n')
    .trim();
}

function messageText(message: Message | undefined): string {
  return message === undefined ? '' : partsText(message.parts);
}

/** The answer of a completed task: its artifacts' text parts, else its final message's text. */
export function answerOf(task: Pick<Task, 'artifacts' | 'status'>): string {
  const fromArtifacts = task.artifacts
    .map((artifact: Artifact) => partsText(artifact.parts))
    .filter((text) => text !== '')
    .join('\n');
  return fromArtifacts || messageText(task.status?.message) || EMPTY_REMOTE_ANSWER;
}

/**
 * What a task status means for the turn: still working (its text is progress), a final outcome
 * (failed, rejected, cancelled by the agent, a question for a person), completed (the answer is
 * read from the task), or the agent asking for authentication (the team disconnects).
 *
 * @remarks A question's id is the status message's id, so the person's answer is matched to
 * the question it was given for; it is bounded like every stored question.
 */
export function verdictOf(taskId: string, status: TaskStatus | undefined): RemoteVerdict {
  const text = messageText(status?.message);
  switch (status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { kind: 'completed' };
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED: {
      const what = status.state === TaskState.TASK_STATE_REJECTED ? 'rejected' : 'failed';
      const error = text === '' ? `The remote agent ${what} the task.` : `The remote agent ${what} the task: ${text}`;
      return { kind: 'final', outcome: { state: 'failed', error: truncateUtf8(error, Limits.answerBytes).text } };
    }
    case TaskState.TASK_STATE_CANCELED:
      return { kind: 'final', outcome: { state: 'failed', error: 'The remote agent cancelled the task.' } };
    case TaskState.TASK_STATE_INPUT_REQUIRED: {
      const question = truncateUtf8(text || 'The remote agent needs more input.', Limits.questionBytes).text;
      const requestId = status.message?.messageId || `${taskId}:${status.timestamp ?? ''}:${question.length}`;
      return {
        kind: 'final',
        outcome: { state: 'waiting', input: { kind: InputKind.CLARIFICATION, requestId, question } },
      };
    }
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { kind: 'auth', reason: text === '' ? 'The remote agent asks for authentication.' : text };
    default:
      return { kind: 'working', progress: text === '' ? null : text };
  }
}
