import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { type TransitionOutcome, transition } from '../jobs/job-machine.js';
import { asJobId, type IdGenerator, type OwnerId } from '../model/ids.js';
import { type Job, JobPhase, type PendingResponse } from '../model/job.js';
import { hashFilter } from '../pagination/cursor.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobWrites } from '../ports/team-store.js';
import { validateClientRequestId } from '../text/validate-text.js';
import type { RespondInput, UsesStore } from './core-types.js';
import { answerMessage, checkResponse, isSafeToInspect, responseFingerprint } from './respond-validation.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<JobWrites>;

/** What {@link decideResponse} needs besides the job. */
export interface ResponseRequest {
  readonly value: unknown;
  readonly clientRequestId: string;
  /** The question id the client saw, when it sent one (stale clients get INPUT_CHANGED). */
  readonly inputRequestId: string | null;
  readonly now: string;
  readonly ids: IdGenerator;
}

/**
 * The run key of the continuation that answers `requestId` on `job`: one per question, so a
 * retried or replayed answer resubmits with the same key and never starts a second run.
 */
export function answerRunKey(job: Job, requestId: string): string {
  return `${job.id}:answer:${hashFilter(requestId)}`;
}

/**
 * Decides an answer (pure): NOT_WAITING_INPUT unless the job waits, INPUT_CHANGED when the
 * client saw another question, INVALID_RESPONSE when the value does not fit the question's kind;
 * otherwise the state machine's RESPOND with the pending answer persisted before any runtime call.
 */
export function decideResponse(job: Job, request: ResponseRequest): TransitionOutcome {
  const pending = job.pendingInput;
  if (job.phase !== JobPhase.WAITING_INPUT || pending === null) {
    return {
      ok: false,
      error: new DomainError(ErrorCode.NOT_WAITING_INPUT, 'This job is not waiting for an answer.', {
        field: 'jobId',
        status: job.phase,
      }),
    };
  }
  if (request.inputRequestId !== null && request.inputRequestId !== pending.requestId) {
    return {
      ok: false,
      error: new DomainError(ErrorCode.INPUT_CHANGED, 'The question changed; read it again before answering.', {
        field: 'inputRequestId',
      }),
    };
  }
  const checked = checkResponse(pending.kind, request.value);
  if (!checked.ok) return checked;
  const response: PendingResponse = {
    runKey: answerRunKey(job, pending.requestId),
    inputRequestId: pending.requestId,
    kind: pending.kind,
    value: checked.value,
    clientRequestId: request.clientRequestId,
    message: answerMessage(pending, checked.value),
  };
  return transition(job, { type: 'RESPOND', response }, { now: request.now, ids: request.ids });
}

/** Fingerprint of an answer refused before inspection: never equal to a stored answer's hash. */
const UNINSPECTED_FINGERPRINT = 'uninspected';

/**
 * `jobs.respond`: answers a waiting job. Idempotent by `(jobId, clientRequestId)`: the same key
 * with the same answer returns the job as it is now, even after it moved on; another answer with
 * that key is IDEMPOTENCY_CONFLICT. Nothing is stored when the answer is refused.
 * @throws DomainError INVALID_INPUT (key), NOT_FOUND, NOT_WAITING_INPUT, INPUT_CHANGED,
 * INVALID_RESPONSE, IDEMPOTENCY_CONFLICT.
 */
export async function respondToJob(deps: Deps, owner: OwnerId, input: RespondInput): Promise<Job> {
  const clientRequestId = validateClientRequestId(input.clientRequestId);
  const inputRequestId = input.inputRequestId ?? null;
  if (inputRequestId !== null && typeof inputRequestId !== 'string') {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'inputRequestId must be text.', { field: 'inputRequestId' });
  }
  const now = nowTimestamp(deps.clock);
  // An answer nested too deep for any kind is never walked recursively (fingerprint, JSON text):
  // it is decided as a missing answer, which every kind refuses with its own INVALID_RESPONSE.
  const safe = isSafeToInspect(input.response);
  const value = safe ? input.response : undefined;
  const { job } = await deps.store.respondToJob({
    owner,
    jobId: asJobId(input.jobId),
    clientRequestId,
    fingerprint: safe ? responseFingerprint(value) : UNINSPECTED_FINGERPRINT,
    now,
    decide: (current) => decideResponse(current, { value, clientRequestId, inputRequestId, now, ids: deps.ids }),
  });
  return job;
}
