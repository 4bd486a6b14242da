import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { MemberStatus } from '../model/team.js';
import type { ToolCaller } from '../services/handoff-service.js';
import {
  closeTeam,
  findMember,
  interruptMember,
  type LifecycleDeps,
  retireMember,
  spawnMember,
} from '../services/lifecycle-service.js';
import { validateText } from '../text/validate-text.js';
import { checkArgumentTypes } from './argument-types.js';
import { LEAD_ONLY_TOOLS, LIFECYCLE_TOOL_SPECS } from './lifecycle-tool-specs.js';
import { toolRequestOf } from './tool-requests.js';

/** The lifecycle tools `invokeLifecycleTool` answers (the lead's four). */
export type LifecycleToolName = 'team_spawn' | 'team_retire' | 'team_close' | 'team_interrupt';

/** True for a tool {@link invokeLifecycleTool} answers. */
export function isLifecycleTool(name: string): name is LifecycleToolName {
  return LEAD_ONLY_TOOLS.has(name);
}

/** @throws DomainError NOT_LEAD unless the caller is the team's (active) lead. */
export function requireLead(caller: ToolCaller, tool: string): void {
  if (!caller.member.isLead || caller.member.retiredAt !== null) {
    throw new DomainError(ErrorCode.NOT_LEAD, `${tool} is for the team's lead only.`, { field: 'name' });
  }
}

function notSelf(caller: ToolCaller, memberId: string, what: string): void {
  if (memberId === caller.member.id) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `The lead cannot ${what} itself.`, { field: 'member' });
  }
}

/**
 * Calls one of the lead's lifecycle tools for `caller` and answers the contract's snake_case JSON.
 *
 * @remarks Order of the checks: the arguments' types (INVALID_INPUT, from the tool's schema), the
 * caller is the lead (NOT_LEAD), then the use case's own rules (value rules, the member named, the
 * team's state). Types come first as everywhere else: unknown arguments are already refused before
 * the caller is known (`argsObject`), the task tools check every argument before the board decides
 * who may write, and a mutation's input is coerced before its resolver runs.
 * @throws DomainError INVALID_INPUT, NOT_LEAD and each use case's codes.
 */
export async function invokeLifecycleTool(
  deps: LifecycleDeps,
  caller: ToolCaller,
  tool: LifecycleToolName,
  args: Readonly<Record<string, unknown>>,
): Promise<unknown> {
  const spec = LIFECYCLE_TOOL_SPECS.find((s) => s.name === tool);
  if (spec !== undefined) checkArgumentTypes(spec, args);
  requireLead(caller, tool);
  switch (tool) {
    case 'team_spawn': {
      const { member, status } = await spawnMember(deps, caller.team, {
        name: args.name,
        agentId: args.agent,
        role: args.role,
        context: args.context,
        clientKey: args.request_id,
        fields: { name: 'name', agentId: 'agent', clientKey: 'request_id' },
      });
      return { member_id: member.id, name: member.name, status };
    }
    case 'team_retire': {
      const target = findMember(caller.roster, args.member, 'member');
      notSelf(caller, target.id, 'retire');
      const { member, cancelled } = await retireMember(deps, caller.team, target, 'lead');
      return { member_id: member.id, status: MemberStatus.RETIRED, cancelled_jobs: cancelled };
    }
    case 'team_close': {
      if (args.reason !== undefined && args.reason !== null) validateText('reason', args.reason, Limits.messageText);
      const team = await closeTeam(deps, caller.team, 'lead');
      return { team_id: team.id, status: team.status };
    }
    case 'team_interrupt': {
      const target = findMember(caller.roster, args.member, 'member');
      notSelf(caller, target.id, 'interrupt');
      // Keyed by the member interrupted and the reason, as the call named them.
      const request = toolRequestOf(caller.member.id, args.request_id, {
        tool,
        member: target.id,
        reason: args.reason,
      });
      const job = await interruptMember(deps, caller.team, target, args.reason, 'reason', 'lead', request);
      return { job_id: job?.id ?? null };
    }
  }
}
