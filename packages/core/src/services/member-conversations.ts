import { memberAgent } from '../agents/member-agent.js';
import type { AgentDefinition } from '../model/agent.js';
import type { AgentId } from '../model/ids.js';
import type { Member, Team } from '../model/team.js';
import type { CoreDeps } from './core-types.js';

/** The title of a member's conversation in its runtime: `<team name> · <member name>`. */
export function conversationTitle(teamName: string, memberName: string): string {
  return `${teamName} · ${memberName}`;
}

/**
 * Ensures every member's conversation exists in its agent's runtime (creating missing ones with
 * the member's recorded agent; the runtime leaves existing ones unchanged).
 *
 * @remarks A failure is logged, not thrown: the team stays in its current status and the person
 * can retry with `reconnectTeam`. Agents already looked up may be passed in to save catalog reads.
 * @returns true when every conversation is ensured.
 */
export async function ensureMemberConversations(
  deps: Pick<CoreDeps, 'catalog' | 'runtimes' | 'logger'>,
  team: Team,
  members: readonly Member[],
  known: ReadonlyMap<AgentId, AgentDefinition> = new Map(),
): Promise<boolean> {
  for (const member of members) {
    try {
      const resolved = memberAgent(
        member,
        known.get(member.agentId) ?? (await deps.catalog.get(member.agentId)),
        deps.runtimes,
      );
      if (!resolved.ok) {
        deps.logger.warn('member agent cannot run here', {
          teamId: team.id,
          memberId: member.id,
          error: resolved.error,
        });
        return false;
      }
      const { agent, runtime } = resolved;
      await runtime.ensureConversation({
        conversationId: member.conversationId,
        agent,
        title: conversationTitle(team.name, member.name),
      });
    } catch (error) {
      deps.logger.error('could not ensure member conversation', { teamId: team.id, memberId: member.id, error });
      return false;
    }
  }
  return true;
}
