import type { Core } from './core-types.js';
import {
  closeTeam,
  interruptMember,
  type LifecycleDeps,
  ownedMember,
  retireMember,
  spawnMember,
} from './lifecycle-service.js';
import { requireTeam } from './team-service.js';

/**
 * The owner's lifecycle use cases (`spawnMember`, `retireMember`, `closeTeam`,
 * `interruptMember`): the owner may always do what the team's lead may, with or without a lead.
 */
export function lifecycleService(deps: LifecycleDeps): Core['lifecycle'] {
  return {
    async spawn(owner, input) {
      const team = await requireTeam(deps, owner, input.teamId);
      const fields = { name: 'name', agentId: 'agentId', clientKey: 'clientRequestId' };
      const spawned = await spawnMember(deps, team, {
        name: input.name,
        agentId: input.agentId,
        role: input.role,
        context: input.context,
        clientKey: input.clientRequestId,
        fields,
      });
      return spawned.member;
    },
    async retire(owner, memberId) {
      const { team, member } = await ownedMember(deps, owner, memberId);
      return (await retireMember(deps, team, member)).member;
    },
    async close(owner, teamId) {
      return closeTeam(deps, await requireTeam(deps, owner, teamId));
    },
    async interrupt(owner, memberId, reason) {
      const { team, member } = await ownedMember(deps, owner, memberId);
      return interruptMember(deps, team, member, reason);
    },
  };
}
