import { DomainError, type MemberToolPort } from '@agent-teams/core';

/**
 * The member tools until the collaboration issue lands: every call answers a typed
 * NOT_AVAILABLE_YET, so scripted `!tool` lines and `!handoff` fail honestly instead of guessing.
 */
export function createUnavailableTools(): MemberToolPort {
  return {
    invoke: async (name) => {
      throw new DomainError('NOT_AVAILABLE_YET', `The member tool "${name}" arrives with the collaboration issue.`, {
        tool: name,
      });
    },
  };
}
