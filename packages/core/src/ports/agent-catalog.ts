import type { AgentDefinition } from '../model/agent.js';
import type { AgentId } from '../model/ids.js';

/**
 * Port: the agents members are chosen from. Implementations that read a remote catalog throw a
 * `CATALOG_UNAVAILABLE` DomainError when they cannot; they never invent agents.
 */
export interface AgentCatalog {
  /** All agents, in catalog order. */
  list(): Promise<readonly AgentDefinition[]>;
  /** One agent, or null when it is not (or no longer) configured. */
  get(id: AgentId): Promise<AgentDefinition | null>;
}
