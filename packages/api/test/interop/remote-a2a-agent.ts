import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentCard, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

/** A message the agent received, as the tests inspect it. */
export interface Received {
  readonly messageId: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly text: string;
  readonly metadata: Record<string, unknown> | undefined;
}

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

function agentMessage(taskId: string, contextId: string, body: string, id: string): Message {
  return {
    messageId: id,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [text(body)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * A real A2A agent built with the SDK's own server (`DefaultRequestHandler`, its in-memory task
 * store and its Express handlers), scripted by the first word of the message it gets:
 *
 * - `!ask <question>`: input-required; the answer completes the task with `answered: <answer>`;
 * - `!fail <reason>`: failed with the reason;
 * - `!auth`: auth-required until {@link RemoteA2aAgent.grantAuth}, then completes `authorized`;
 * - `!hold`: works until {@link RemoteA2aAgent.release} (or a cancel);
 * - `!progress <n>`: n working updates (`step 1` ...), then completes `done after <n> steps`;
 * - anything else: completes with `echo: <text>` as an artifact.
 *
 * With `apiKey`, requests without `Authorization: Bearer <apiKey>` get 401.
 */
export class RemoteA2aAgent {
  readonly received: Received[] = [];
  readonly cancelled: string[] = [];
  #server: Server | null = null;
  #url = '';
  #authGranted: () => void = () => undefined;
  #auth = new Promise<void>((resolve) => {
    this.#authGranted = resolve;
  });
  readonly #holds = new Map<string, (how: 'released' | 'cancelled') => void>();

  constructor(readonly opts: { readonly apiKey?: string; readonly streaming?: boolean } = {}) {}

  /** The agent's base URL (its card is under `/.well-known/agent-card.json`). */
  get url(): string {
    return this.#url;
  }

  async start(port = 0): Promise<void> {
    const executor: AgentExecutor = {
      execute: (context, bus) => this.#execute(context, bus),
      cancelTask: async (taskId, bus) => {
        this.cancelled.push(taskId);
        this.#holds.get(taskId)?.('cancelled');
        const contextId = this.received.find((message) => message.taskId === taskId)?.contextId ?? '';
        bus.publish(AgentEvent.statusUpdate(this.#status(taskId, contextId, TaskState.TASK_STATE_CANCELED)));
        bus.finished();
      },
    };
    const app = express();
    if (this.opts.apiKey !== undefined) {
      const expected = `Bearer ${this.opts.apiKey}`;
      app.use((req, res, next) => (req.header('authorization') === expected ? next() : res.status(401).end()));
    }
    // The card names the JSON-RPC URL, known once listening: the routes are added after that.
    await new Promise<void>((resolve) => {
      this.#server = app.listen(port, '127.0.0.1', () => resolve());
    });
    const address = this.#server?.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${address.port}`;
    const requestHandler = new DefaultRequestHandler(this.#card(), this.#tasks, executor);
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
    app.use('/', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  }

  /** Tasks survive a stop and start of the agent (as a persistent store would keep them). */
  readonly #tasks = new InMemoryTaskStore();

  /** The port it listens on (to start it again on the same one). */
  get port(): number {
    return Number(new URL(this.#url).port);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Lets every `!auth` task go on. */
  grantAuth(): void {
    this.#authGranted();
  }

  /** Completes a `!hold` task. */
  release(taskId: string): void {
    this.#holds.get(taskId)?.('released');
  }

  /** The ids of the tasks holding now. */
  holding(): string[] {
    return [...this.#holds.keys()];
  }

  #card(): AgentCard {
    return {
      name: 'Remote analyst',
      description: 'A test agent built with the A2A SDK',
      supportedInterfaces: [{ url: this.#url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      provider: undefined,
      version: '1.0.0',
      capabilities: { streaming: this.opts.streaming ?? true, pushNotifications: false, extensions: [] },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [],
    };
  }

  #status(taskId: string, contextId: string, state: TaskState, body?: string) {
    return {
      taskId,
      contextId,
      status: {
        state,
        message:
          body === undefined
            ? undefined
            : agentMessage(taskId, contextId, body, `${taskId}:${state}:${this.received.length}`),
        timestamp: new Date().toISOString(),
      },
      metadata: undefined,
    };
  }

  async #execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    const said = message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
    this.received.push({ messageId: message.messageId, taskId, contextId, text: said, metadata: message.metadata });
    const existing: Task | undefined = context.task;
    bus.publish(
      AgentEvent.task(
        existing ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [message],
          metadata: undefined,
        },
      ),
    );
    const status = (state: TaskState, body?: string) =>
      bus.publish(AgentEvent.statusUpdate(this.#status(taskId, contextId, state, body)));
    const complete = (answer: string) => {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [text(answer)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED);
      bus.finished();
    };
    if (existing?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      complete(`answered: ${said}`);
      return;
    }
    const [word, ...rest] = said.split(/\s+/);
    const arg = rest.join(' ');
    status(TaskState.TASK_STATE_WORKING, 'thinking');
    if (word === '!ask') {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, arg);
    } else if (word === '!fail') {
      status(TaskState.TASK_STATE_FAILED, arg);
      bus.finished();
    } else if (word === '!auth') {
      status(TaskState.TASK_STATE_AUTH_REQUIRED, 'Sign in to the analytics warehouse.');
      await this.#auth;
      status(TaskState.TASK_STATE_WORKING, 'signed in');
      complete('authorized');
    } else if (word === '!hold') {
      const how = await new Promise<'released' | 'cancelled'>((resolve) => this.#holds.set(taskId, resolve));
      this.#holds.delete(taskId);
      if (how === 'released') complete('released');
    } else if (word === '!progress') {
      const steps = Number(arg);
      for (let step = 1; step <= steps; step += 1) status(TaskState.TASK_STATE_WORKING, `step ${step}`);
      complete(`done after ${steps} steps`);
    } else {
      complete(`echo: ${said}`);
    }
  }
}
