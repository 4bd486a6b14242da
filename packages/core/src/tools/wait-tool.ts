import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { ChangeWaitPlan } from '../model/change-wait.js';
import { toTimestamp } from '../ports/clock.js';
import type { UsesStore } from '../services/core-types.js';
import type { ToolCaller } from '../services/handoff-service.js';

function integer(args: Readonly<Record<string, unknown>>, field: string, min: number, max: number): number | null {
  const value = args[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be a whole number from ${min} to ${max}.`, {
      field,
      min,
      max,
    });
  }
  return value;
}

/**
 * Plans a `wait_for_change` for `caller` (pure but for the clock): `timeout_ms` within
 * `Limits.waitTimeoutMs`, `after_seq` from 0 to the team's newest seq (default: that seq, "the
 * call"), and the deadline `timeout_ms` from now.
 * @throws DomainError INVALID_INPUT naming the field and its bounds.
 */
export function planChangeWait(
  deps: Pick<UsesStore<unknown>, 'clock'>,
  caller: ToolCaller,
  args: Readonly<Record<string, unknown>>,
): ChangeWaitPlan {
  const { min, max } = Limits.waitTimeoutMs;
  const timeoutMs = integer(args, 'timeout_ms', min, max);
  if (timeoutMs === null) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `timeout_ms must be a whole number from ${min} to ${max}.`, {
      field: 'timeout_ms',
      min,
      max,
    });
  }
  const afterSeq = integer(args, 'after_seq', 0, caller.team.lastEventSeq) ?? caller.team.lastEventSeq;
  return { afterSeq, timeoutMs, deadline: toTimestamp(deps.clock.nowMs() + timeoutMs) };
}
