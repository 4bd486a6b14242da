import { type Artifact, type Message, type Part, Role, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import { isTerminal, JobStatus, type JobView, statusOf } from '@agent-teams/core';

/**
 * A job's public status as an A2A task state: QUEUED (admitting included) → submitted,
 * RUNNING/RESUMING → working (and CANCELLING: the run is still being stopped), WAITING_INPUT →
 * input-required, COMPLETED → completed, FAILED → failed, CANCELLED → canceled.
 */
export function taskStateOf(job: JobView): TaskState {
  switch (statusOf(job.phase)) {
    case JobStatus.QUEUED:
      return TaskState.TASK_STATE_SUBMITTED;
    case JobStatus.WAITING_INPUT:
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case JobStatus.COMPLETED:
      return TaskState.TASK_STATE_COMPLETED;
    case JobStatus.FAILED:
      return TaskState.TASK_STATE_FAILED;
    case JobStatus.CANCELLED:
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_WORKING;
  }
}

/** True when a stream of this job ends here: a final state, or a question waiting for its asker. */
export function endsStream(job: JobView): boolean {
  return isTerminal(job.phase) || taskStateOf(job) === TaskState.TASK_STATE_INPUT_REQUIRED;
}

/**
 * What distinguishes two snapshots of a job for an A2A client (its state, and the question when
 * it asks one): a stream sends one update per distinct key, in order.
 *
 * @remarks The question's id counts only while input-required: an answered job keeps its
 * `pendingInput` until its run resumes, so the id would split one `working` (resuming, then
 * running) into two updates. A new question after an answer is a new key all the same.
 */
export function stateKey(job: JobView): string {
  const state = taskStateOf(job);
  return state === TaskState.TASK_STATE_INPUT_REQUIRED ? `${state}:${job.pendingInput?.requestId ?? ''}` : `${state}`;
}

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(job: JobView, id: string, parts: Part[], metadata?: Record<string, unknown>): Message {
  return {
    messageId: `${job.id}:${id}`,
    contextId: job.conversationId,
    taskId: job.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The status message: the question while waiting, the answer when completed, the reason when failed. */
function statusMessage(job: JobView): Message | undefined {
  const input = job.pendingInput;
  if (taskStateOf(job) === TaskState.TASK_STATE_INPUT_REQUIRED && input !== null) {
    const meta = { agentTeams: { inputRequestId: input.requestId, kind: input.kind } };
    return input.kind === 'CLARIFICATION'
      ? agentMessage(job, `input:${input.requestId}`, [textPart(input.question)], meta)
      : agentMessage(
          job,
          `input:${input.requestId}`,
          [{ content: { $case: 'data', value: input.payload }, metadata: undefined, filename: '', mediaType: '' }],
          meta,
        );
  }
  if (statusOf(job.phase) === JobStatus.COMPLETED && job.result !== null) {
    return agentMessage(job, 'result', [textPart(job.result.text)]);
  }
  if (statusOf(job.phase) === JobStatus.FAILED && job.error !== null) {
    return agentMessage(job, 'error', [textPart(job.error)]);
  }
  return undefined;
}

/** The task's status now. */
export function taskStatusOf(job: JobView): TaskStatus {
  return { state: taskStateOf(job), message: statusMessage(job), timestamp: job.updatedAt };
}

/** The result of a completed job as a text artifact. */
export function resultArtifact(job: JobView): Artifact | null {
  if (statusOf(job.phase) !== JobStatus.COMPLETED || job.result === null) return null;
  return {
    artifactId: `${job.id}:result`,
    name: 'result',
    description: 'The answer of the member.',
    parts: [textPart(job.result.text)],
    metadata: { truncated: job.result.truncated },
    extensions: [],
  };
}

/** A job as an A2A task: the request as its history, the result as its artifact. */
export function taskOf(job: JobView, historyLength?: number): Task {
  const request: Message = {
    ...agentMessage(job, 'request', [textPart(job.text)]),
    messageId: job.clientKey,
    role: Role.ROLE_USER,
  };
  const artifact = resultArtifact(job);
  return {
    id: job.id,
    contextId: job.conversationId,
    status: taskStatusOf(job),
    artifacts: artifact === null ? [] : [artifact],
    history: historyLength === 0 ? [] : [request],
    metadata: { agentTeams: { teamId: job.teamId, memberId: job.memberId, status: statusOf(job.phase) } },
  };
}
