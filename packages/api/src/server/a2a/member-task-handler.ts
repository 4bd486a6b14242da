import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import {
  asJobId,
  type DomainError,
  isTerminal,
  JobPhase,
  type JobView,
  type Logger,
  type Member,
  type OwnerId,
  type Team,
} from '@agent-teams/core';
import { a2aCall, toA2aError } from './a2a-errors.js';
import { type FollowDeps, followJob } from './follow-job.js';
import type { FollowSlots } from './follow-slots.js';
import { answerOf, requestTextOf } from './message-parts.js';
import { resultArtifact, taskOf, taskStatusOf } from './task-view.js';

/** How long `CancelTask` waits for the run to confirm before answering the task as it is. */
export const CANCEL_WAIT_MS = 5_000;

/** Who is asked and who asks: one member of one owner's team, for one HTTP request. */
export interface MemberAgentScope extends FollowDeps {
  readonly owner: OwnerId;
  /** Read before anything this request changes (its `lastEventSeq` anchors every follow). */
  readonly team: Team;
  readonly member: Member;
  readonly card: AgentCard;
  readonly logger: Logger;
  /** The owner's rate limit, asked before each new request (answers are never limited). */
  readonly takeToken: (owner: OwnerId) => DomainError | null;
  /** Aborts when the client goes away: blocking sends and streams stop following. */
  readonly signal: AbortSignal;
  /** The follows each owner holds open (streams and blocking sends), capped per owner. */
  readonly follows: FollowSlots;
}

/**
 * A member as an A2A agent: the protocol's operations mapped onto the core's use cases, for the
 * SDK's JSON-RPC transport handler. A task is a job of this member (its id is the job id); a
 * message starts a request (`messageId` is its idempotency key) or, carrying the `taskId` of an
 * input-required task, answers it. Push notifications and task listing are not offered.
 */
export class MemberTaskHandler implements A2ARequestHandler {
  readonly #scope: MemberAgentScope;

  constructor(scope: MemberAgentScope) {
    this.#scope = scope;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#scope.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card.');
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    if (params.configuration?.returnImmediately) {
      return taskOf(await this.#accept(params), params.configuration.historyLength);
    }
    // Taken before the message is accepted: a refusal changes nothing.
    const release = this.#takeFollow();
    try {
      let last = await this.#accept(params);
      for await (const snapshot of this.#follow(last, false, this.#scope.signal)) last = snapshot;
      return taskOf(last, params.configuration?.historyLength);
    } finally {
      release();
    }
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const release = this.#takeFollow();
    try {
      yield* this.#stream(await this.#accept(params), false);
    } finally {
      release();
    }
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return taskOf(await this.#job(params.id), params.historyLength);
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const job = await this.#job(params.id);
    if (job.phase === JobPhase.CANCELLED) return taskOf(job);
    if (isTerminal(job.phase)) throw new TaskNotCancelableError(`Task ${job.id} has already finished.`);
    const { owner, core, logger } = this.#scope;
    const { job: cancelling } = await a2aCall(logger, () => core.jobs.cancel(owner, job.id));
    // Most runs stop at once; answer the final state when it comes in time, else the task as it is.
    const signal = AbortSignal.any([this.#scope.signal, AbortSignal.timeout(CANCEL_WAIT_MS)]);
    let last: JobView = cancelling;
    for await (const snapshot of this.#follow(cancelling, false, signal)) last = snapshot;
    return taskOf(last);
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const job = await this.#job(params.id);
    if (isTerminal(job.phase)) {
      throw new UnsupportedOperationError(`Task ${job.id} has finished and cannot be subscribed to.`);
    }
    const release = this.#takeFollow();
    try {
      yield* this.#stream(job, true);
    } finally {
      release();
    }
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('Listing tasks is not offered; read a task by its id.');
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  /** Creates the request a message asks for, or answers the task it names; returns the job. */
  async #accept(params: SendMessageRequest): Promise<JobView> {
    const message = params.message;
    if (!message?.messageId) throw new RequestMalformedError('message.messageId is required.');
    const { owner, team, member, core, logger } = this.#scope;
    if (message.taskId) {
      const waiting = await this.#job(message.taskId);
      const { value, inputRequestId } = answerOf(message, waiting);
      return a2aCall(logger, () =>
        core.jobs.respond(owner, {
          jobId: waiting.id,
          response: value,
          clientRequestId: message.messageId,
          inputRequestId,
        }),
      );
    }
    const text = requestTextOf(message);
    const [job] = await a2aCall(logger, async () => {
      const limited = this.#scope.takeToken(owner);
      if (limited !== null) throw limited;
      return core.requests.send(owner, {
        teamId: team.id,
        memberIds: [member.id],
        text,
        clientRequestId: message.messageId,
      });
    });
    if (job === undefined) throw new Error('[agent-teams/api] a request was sent but no job returned');
    return job;
  }

  /** One of the owner's follow slots (its release), or the SUBSCRIPTION_LIMIT refusal as an A2A error. */
  #takeFollow(): () => void {
    try {
      return this.#scope.follows.take(this.#scope.owner);
    } catch (error) {
      throw toA2aError(error, this.#scope.logger);
    }
  }

  /** A job of this member (its tasks), or TaskNotFoundError. */
  async #job(taskId: string): Promise<JobView> {
    const { owner, team, member, core, logger } = this.#scope;
    if (!taskId) throw new RequestMalformedError('A task id is required.');
    const job = await a2aCall(logger, () => core.jobs.get(owner, asJobId(taskId)));
    if (job === null || job.teamId !== team.id || job.memberId !== member.id) {
      throw new TaskNotFoundError(`Task not found: ${taskId}`);
    }
    return job;
  }

  #follow(job: JobView, pastQuestion: boolean, signal: AbortSignal): AsyncGenerator<JobView, void, undefined> {
    const { owner, team } = this.#scope;
    return followJob(this.#scope, { owner, teamId: team.id, afterSeq: team.lastEventSeq, job, pastQuestion }, signal);
  }

  /** The task first, then one status update per change (the result artifact before completion). */
  async *#stream(job: JobView, pastQuestion: boolean): AsyncGenerator<StreamResponse, void, undefined> {
    let first = true;
    for await (const snapshot of this.#follow(job, pastQuestion, this.#scope.signal)) {
      if (first) {
        first = false;
        yield { payload: { $case: 'task', value: taskOf(snapshot) } };
        continue;
      }
      const ids = { taskId: snapshot.id, contextId: snapshot.conversationId, metadata: undefined };
      const artifact = resultArtifact(snapshot);
      // Not literals that begin with a spread (see `UNADMITTED` in the core): one per event.
      if (artifact !== null) {
        yield {
          payload: {
            $case: 'artifactUpdate',
            value: Object.assign({}, ids, { artifact, append: false, lastChunk: true }),
          },
        };
      }
      yield { payload: { $case: 'statusUpdate', value: Object.assign({}, ids, { status: taskStatusOf(snapshot) }) } };
    }
  }
}
