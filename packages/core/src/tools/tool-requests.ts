import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { MemberId } from '../model/ids.js';
import { hashFilter } from '../pagination/cursor.js';
import type { RecordedToolRequest, ToolRequest } from '../ports/store/tool-requests.js';
import { validateClientRequestId } from '../text/validate-text.js';

/**
 * The stored key of a member's `request_id`: the member's id before it, so one member's id never
 * answers another member's call (each member has its key space), and tool keys never meet the
 * keys people choose (`clientRequestId`), which carry no such prefix.
 */
export const toolRequestKey = (memberId: MemberId, requestId: string): string => `tool:${memberId}:${requestId}`;

/**
 * The idempotency key of a member's call from its optional `request_id` (validated as a
 * `clientRequestId`), with the hash of `content`: the call's tool and validated arguments. Null
 * without one: the call acts every time, as it always did.
 *
 * @remarks Used by the tools that change what a retry would see changed (`team_interrupt`, the
 * task writes with their `expected_revision`), which therefore cannot be made idempotent by
 * their arguments alone; `task_create` keeps its key on the task itself (`Task.clientRequestId`).
 */
export function toolRequestOf(memberId: MemberId, requestId: unknown, content: unknown): ToolRequest | null {
  if (requestId === undefined || requestId === null) return null;
  return {
    key: toolRequestKey(memberId, validateClientRequestId(requestId, 'request_id')),
    fingerprint: hashFilter(content),
  };
}

/**
 * Decides a call whose key the store found recorded (see `ToolRequest`): null when it is the same
 * call again (the caller answers the recorded outcome), else IDEMPOTENCY_CONFLICT on `request_id`.
 */
export function toolReplayConflict(recorded: RecordedToolRequest, request: ToolRequest): DomainError | null {
  if (recorded.fingerprint === request.fingerprint) return null;
  return new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'request_id was used for another call.', {
    field: 'request_id',
  });
}
