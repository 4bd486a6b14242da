import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { ChangeWaitPlan } from '../model/change-wait.js';
import type { JobId, MemberId, OwnerId, TeamId } from '../model/ids.js';
import { argsObject, type MemberToolDeps, resolveToolCaller } from './member-tools.js';
import { planChangeWait } from './wait-tool.js';

/**
 * A `wait_for_change` of a caller outside the server (an agent on MCP or `invokeTeamTool`): what
 * to watch and until when. Its turn runs elsewhere and cannot be paused, so the server holds the
 * call's request instead of parking a job (see the api's `events/outside-wait.ts`).
 */
export interface OutsideWait {
  readonly plan: ChangeWaitPlan;
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  /** The waiting job and its member: their own changes do not wake the wait (`wakesWaiter`). */
  readonly jobId: JobId;
  readonly memberId: MemberId;
}

/**
 * Checks a `wait_for_change` call bound to `jobId` like a runtime's (FORBIDDEN for a finished
 * job or another team, INVALID_INPUT for its arguments) and answers what it waits on.
 */
export async function planOutsideWait(deps: MemberToolDeps, jobId: JobId, args: unknown): Promise<OutsideWait> {
  const input = argsObject('wait_for_change', args);
  const caller = await resolveToolCaller(deps, jobId);
  if (input.team_id !== undefined && input.team_id !== null && input.team_id !== caller.team.id) {
    throw new DomainError(ErrorCode.FORBIDDEN, 'The member tools of this run reach only its own team.');
  }
  return {
    plan: planChangeWait(deps, caller, input),
    owner: caller.team.owner,
    teamId: caller.team.id,
    jobId: caller.job.id,
    memberId: caller.member.id,
  };
}
