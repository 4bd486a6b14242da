import { type Message, Role, type SendMessageRequest, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import type { A2aRunDoc } from './a2a-run-doc.js';
import type { RemoteAgent } from './remote-agent.js';

/** Final and interrupted states: a poll stops there. */
const SETTLED_STATES = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** The run's message: its text in the member's A2A context (and task, for an answer), with team metadata. */
export function messageOf(doc: A2aRunDoc, metadata: Record<string, unknown>): Message {
  return {
    messageId: doc.messageId,
    contextId: doc.contextId,
    taskId: doc.remoteTaskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: doc.text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Waits `ms` unless the run is cancelled; resolves false when it was. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<boolean>;

/** How a task that is not streamed is read again: every `ms`, waiting with `sleep`. */
export interface TaskPoll {
  readonly ms: number;
  readonly sleep: Sleep;
}

/** One turn's line to the remote agent: the agent, the run's signal and how to poll a task. */
export interface RemoteCall {
  readonly agent: RemoteAgent;
  readonly signal: AbortSignal;
  readonly poll: TaskPoll;
}

/** What the remote agent says about a task, in order. */
type RemoteEvents = AsyncGenerator<StreamResponse, void, undefined>;

/**
 * Sends the message: streaming to an agent that streams (its first event names the task);
 * otherwise one call that returns as soon as the task exists, then polls it.
 */
export async function* sendMessage(call: RemoteCall, message: Message): RemoteEvents {
  const { agent, signal } = call;
  const params: SendMessageRequest = {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately: !agent.streaming,
    },
    metadata: undefined,
  };
  if (agent.streaming) {
    yield* agent.client.sendMessageStream(params, { signal });
    return;
  }
  const result = await agent.client.sendMessage(params, { signal });
  if (!('status' in result)) {
    yield { payload: { $case: 'message', value: result } };
    return;
  }
  yield { payload: { $case: 'task', value: result } };
  if (!SETTLED_STATES.has(result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
    yield* followTask(call, result.id);
  }
}

/**
 * Follows a known task: `SubscribeToTask` for an agent that streams (a task that already
 * settled answers with its snapshot instead), otherwise `GetTask` every `poll.ms` until it settles.
 */
export async function* followTask(call: RemoteCall, taskId: string): RemoteEvents {
  const { agent, signal, poll } = call;
  if (agent.streaming) {
    try {
      yield* agent.client.resubscribeTask({ tenant: '', id: taskId }, { signal });
      return;
    } catch (error) {
      // A settled task cannot be subscribed to; read it instead (anything else is the caller's).
      if (!(error instanceof A2AError) || error.name !== 'UnsupportedOperationError') throw error;
    }
  }
  for (;;) {
    const task = await agent.client.getTask({ tenant: '', id: taskId }, { signal });
    yield { payload: { $case: 'task', value: task } };
    if (SETTLED_STATES.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) return;
    if (!(await poll.sleep(poll.ms, signal))) return;
  }
}

/** Reads a task with its whole history and artifacts. */
export function readTask(agent: RemoteAgent, taskId: string, signal: AbortSignal): Promise<Task> {
  return agent.client.getTask({ tenant: '', id: taskId }, { signal });
}

/**
 * After a restart (or a send whose answer broke off), whether the remote agent has our message:
 * the task it belongs to (its id, when the agent has it) or null when it demonstrably does not.
 *
 * @remarks An answer's task is known: it has the message when the message is in its history or
 * the task no longer waits on the question answered. A new turn's task is looked up in the
 * conversation's context (`ListTasks`, by the message id in each task's history); an agent that
 * cannot list tasks leaves it unknown, and then the turn is never sent again (`undefined`).
 * @returns the task id (delivered), null (not delivered: send it), undefined (unknown).
 */
export async function deliveredTo(
  agent: RemoteAgent,
  doc: A2aRunDoc,
  signal: AbortSignal,
): Promise<string | null | undefined> {
  const has = (task: Task) => task.history.some((message) => message.messageId === doc.messageId);
  if (doc.remoteTaskId !== null && doc.answers !== null) {
    const task = await readTask(agent, doc.remoteTaskId, signal);
    const stillAsks =
      task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED && task.status.message?.messageId === doc.answers;
    return has(task) || !stillAsks ? task.id : null;
  }
  if (doc.remoteTaskId !== null) return doc.remoteTaskId;
  try {
    const listed = await agent.client.listTasks(
      {
        tenant: '',
        contextId: doc.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 100,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      { signal },
    );
    return listed.tasks.find(has)?.id ?? undefined;
  } catch (error) {
    if (error instanceof A2AError) return undefined;
    throw error;
  }
}
