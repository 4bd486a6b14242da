import type { AgentCatalog, AgentDefinition, AgentId } from '@agent-teams/core';

/** The agent catalog of the configuration file (read once at start-up; never fails). */
export function createConfigCatalog(agents: readonly AgentDefinition[]): AgentCatalog {
  const byId = new Map(agents.map((agent) => [agent.id as string, agent]));
  return {
    list: async () => agents,
    get: async (id: AgentId) => byId.get(id) ?? null,
  };
}
