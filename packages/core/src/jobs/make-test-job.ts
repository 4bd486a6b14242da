import { DomainError } from '../errors/domain-error.js';
// Test support for the job machine's tests (not exported from the package barrel).
import {
  asConversationId,
  asJobId,
  asMemberId,
  asOwnerId,
  asRunId,
  asTeamId,
  type IdGenerator,
  type MemberId,
} from '../model/ids.js';
import { InputKind, type Job, JobKind, JobPhase, type TurnInput, UNADMITTED } from '../model/job.js';
import type { JobCommand, JobCommandType, TransitionContext } from './job-commands.js';

/** The clock reading every test transition happens at. */
export const TEST_NOW = '2026-11-30T04:00:05.000Z';

/** A transition context with sequential ids (`job_900`, `job_901`, ...). */
export function testContext(now = TEST_NOW): TransitionContext {
  let next = 900;
  const mint =
    <T>(prefix: string) =>
    () =>
      `${prefix}_${next++}` as T;
  const ids: IdGenerator = {
    teamId: mint('team'),
    memberId: mint('member'),
    jobId: mint('job'),
    recordId: mint('record'),
    conversationId: mint('conversation'),
    messageId: mint('message'),
    taskId: mint('task'),
  };
  return { now, ids };
}

export const WRITER = asMemberId('member_2');
export const RESEARCHER = asMemberId('member_1');

const input: TurnInput = {
  kind: 'request',
  jobId: asJobId('job_1'),
  teamId: asTeamId('team_1'),
  text: 'Summarise the findings',
  memberName: 'Writer',
  requesterName: null,
  receipt: null,
  context: {},
};

/** Fields a job normally has once it reached `phase` (run id, frozen input, pending question). */
function fieldsFor(phase: JobPhase): Partial<Job> {
  const admitted = { input, runKey: 'job_1', startedAt: '2026-11-30T04:00:01.000Z' };
  const question = { kind: InputKind.CLARIFICATION, requestId: 'q_1', question: 'Which region?' } as const;
  switch (phase) {
    case JobPhase.QUEUED:
      return {};
    case JobPhase.ADMITTING:
      return admitted;
    case JobPhase.WAITING_INPUT:
      return { ...admitted, runId: asRunId('run_1'), pendingInput: question };
    case JobPhase.ANSWERED:
      return {
        ...admitted,
        runId: asRunId('run_1'),
        pendingInput: question,
        pendingResponse: {
          runKey: 'job_1:q_1',
          inputRequestId: 'q_1',
          kind: 'CLARIFICATION',
          value: 'EU',
          clientRequestId: 'c',
        },
      };
    case JobPhase.WAITING_CHANGE:
      return { ...admitted, runId: asRunId('run_1'), wait: TEST_WAIT };
    default:
      return { ...admitted, runId: asRunId('run_1') };
  }
}

/** The wait of the factory's WAITING_CHANGE job. */
export const TEST_WAIT = { requestId: 'w_1', afterSeq: 5, timeoutMs: 10_000, deadline: '2026-11-30T04:00:15.000Z' };

/** A REQUEST job from a person to the writer, in `phase`, frozen so a test notices any mutation. */
export function makeTestJob(phase: JobPhase = JobPhase.QUEUED, overrides: Partial<Job> = {}): Job {
  const job: Job = {
    id: asJobId('job_1'),
    teamId: asTeamId('team_1'),
    owner: asOwnerId('alice'),
    kind: JobKind.REQUEST,
    phase,
    seq: 1,
    memberId: WRITER,
    conversationId: asConversationId('conversation_2'),
    requester: { memberId: null, conversationId: null },
    parentId: null,
    rootId: asJobId('job_1'),
    clientKey: 'client-1',
    text: 'Summarise the findings',
    ...UNADMITTED,
    createdAt: '2026-11-30T04:00:00.000Z',
    updatedAt: '2026-11-30T04:00:00.000Z',
    ...fieldsFor(phase),
    ...overrides,
  };
  return Object.freeze(job);
}

/** The same job, asked by the researcher from its conversation (so a receipt is due). */
export function askedByMember(job: Job, memberId: MemberId = RESEARCHER): Job {
  return Object.freeze({ ...job, requester: { memberId, conversationId: asConversationId('conversation_1') } });
}

/** A plausible command of each type (RESPOND answers the factory's pending question). */
export function sampleCommand(type: JobCommandType): JobCommand {
  switch (type) {
    case 'FREEZE':
      return { type, input, runKey: 'job_1' };
    case 'ACKNOWLEDGE':
    case 'RESUMED':
      return { type, runId: asRunId('run_2') };
    case 'ASK_INPUT':
      return { type, input: { kind: InputKind.CLARIFICATION, requestId: 'q_2', question: 'Which year?' } };
    case 'RESPOND':
      return {
        type,
        response: {
          runKey: 'job_1:q_1',
          inputRequestId: 'q_1',
          kind: 'CLARIFICATION',
          value: 'EU',
          clientRequestId: 'c',
        },
      };
    case 'COMPLETE':
      return { type, answer: 'Done.' };
    case 'FAIL':
      return { type, error: 'Agent unavailable.' };
    case 'TIME_OUT':
      return { type, timeoutMs: 180_000 };
    case 'AWAIT_CHANGE':
      return { type, wait: { ...TEST_WAIT, requestId: 'w_2' } };
    case 'WAKE':
      return {
        type,
        response: {
          runKey: 'job_1:wake:w_1',
          inputRequestId: 'w_1',
          kind: 'CHANGE',
          value: { timed_out: true, seq: 5, changes: [] },
          clientRequestId: 'w_1',
        },
      };
    case 'RESUME':
    case 'CANCEL':
    case 'CANCEL_CONFIRMED':
      return { type };
  }
}

/** The DomainError `run` throws (a test of a refusal fails if it throws anything else, or nothing). */
export function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}
