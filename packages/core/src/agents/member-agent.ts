import type { AgentDefinition } from '../model/agent.js';
import type { Member } from '../model/team.js';
import type { AgentRuntime } from '../ports/agent-runtime.js';
import type { RuntimeRegistry } from '../services/core-types.js';

/** Where a member's turns run (its agent and that agent's runtime), or why they cannot run here. */
export type MemberAgent =
  | { readonly ok: true; readonly agent: AgentDefinition; readonly runtime: AgentRuntime }
  | { readonly ok: false; readonly error: string };

/**
 * Resolves a member to the agent and runtime that run its turns: the one place that decides
 * whether a member can run on this server (team creation ensuring conversations, admission
 * freezing a turn, the scheduler driving a run).
 *
 * @param agent - the catalog's entry for `member.agentId` (null: not in the catalog); the caller
 * reads the catalog, so this stays synchronous for use inside a store transaction.
 * @returns the failure text a person reads on the job when the member cannot run.
 */
export function memberAgent(
  member: Member | null,
  agent: AgentDefinition | null,
  runtimes: RuntimeRegistry,
): MemberAgent {
  if (member === null) return { ok: false, error: 'The member of this job no longer exists.' };
  if (agent === null) return { ok: false, error: `The agent "${member.agentId}" is not in the agent catalog.` };
  const runtime = runtimes.get(agent.runtime);
  if (runtime === null) {
    return {
      ok: false,
      error: `The agent "${agent.name}" uses the runtime "${agent.runtime}", which this server does not run.`,
    };
  }
  return { ok: true, agent, runtime };
}
