import { type Message, Role, type SendMessageRequest, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

/** A fetch that sends `Authorization: Bearer <token>` (the owner's token) with every request. */
export function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's own client for a member's agent, discovered from its card under `agentUrl`. */
export async function connectA2a(agentUrl: string, token: string): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(agentUrl.endsWith('/') ? agentUrl : `${agentUrl}/`);
}

let counter = 0;

/** A user message with one text part (a fresh message id unless given). */
export function userMessage(text: string, opts: { taskId?: string; messageId?: string } = {}): Message {
  counter += 1;
  return {
    messageId: opts.messageId ?? `a2a-test-${process.pid}-${counter}`,
    contextId: '',
    taskId: opts.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A SendMessage request for `message` (blocking unless `returnImmediately`). */
export function sendParams(message: Message, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}

/** The task a send answered (fails on a bare message: members always answer with tasks). */
export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The text of a task's status message. */
export function statusText(task: Pick<Task, 'status'>): string | undefined {
  const part = task.status?.message?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
}

/** The text of a task's first artifact. */
export function artifactText(task: Task): string | undefined {
  const part = task.artifacts[0]?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
}

/** The state a stream event carries (the task's, or the status update's). */
export function eventState(event: StreamResponse): TaskState | 'artifact' | 'message' {
  const payload = event.payload;
  if (payload?.$case === 'task') return payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (payload?.$case === 'artifactUpdate') return 'artifact';
  return 'message';
}

/** Collects every event of a stream. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
