import {
  type AgentCatalog,
  type AgentDefinition,
  type AgentId,
  asAgentId,
  DomainError,
  ErrorCode,
  Limits,
} from '@agent-teams/core';

/** The fields a test usually cares about; the rest get defaults. */
export interface AgentSpec {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly runtime?: string;
  readonly timeoutMs?: number;
  readonly settings?: Readonly<Record<string, unknown>>;
}

/** Builds an {@link AgentDefinition} whose id is its catalog name (as configured agents are). */
export function agentDefinition(spec: AgentSpec): AgentDefinition {
  return {
    id: asAgentId(spec.name),
    name: spec.name,
    title: spec.title ?? spec.name,
    description: spec.description ?? '',
    runtime: spec.runtime ?? 'scripted',
    timeoutMs: spec.timeoutMs ?? Limits.defaultTurnTimeoutMs,
    settings: spec.settings ?? {},
  };
}

/** The three demo agents of the contract README, on the scripted runtime. */
export const DEMO_AGENTS: readonly AgentDefinition[] = [
  agentDefinition({ name: 'researcher', title: 'Research', description: 'Find and check source evidence' }),
  agentDefinition({ name: 'reviewer', title: 'Review', description: 'Independent quality review' }),
  agentDefinition({ name: 'writer', title: 'Writer', description: 'Write clear reports' }),
];

/**
 * An {@link AgentCatalog} over a fixed list, in list order.
 *
 * @remarks `setAvailable(false)` makes every read throw CATALOG_UNAVAILABLE, like a remote
 * catalog that cannot be reached, so tests can prove the core never invents agents.
 */
export class StaticCatalog implements AgentCatalog {
  readonly #agents: readonly AgentDefinition[];
  #available = true;

  constructor(agents: readonly (AgentDefinition | AgentSpec)[] = DEMO_AGENTS) {
    this.#agents = agents.map((agent) => ('id' in agent ? agent : agentDefinition(agent)));
  }

  async list(): Promise<readonly AgentDefinition[]> {
    this.#check();
    return this.#agents;
  }

  async get(id: AgentId): Promise<AgentDefinition | null> {
    this.#check();
    return this.#agents.find((agent) => agent.id === id) ?? null;
  }

  /** Makes the catalog readable (true) or failing with CATALOG_UNAVAILABLE (false). */
  setAvailable(available: boolean): void {
    this.#available = available;
  }

  #check(): void {
    if (!this.#available) {
      throw new DomainError(ErrorCode.CATALOG_UNAVAILABLE, 'The agent catalog could not be read.');
    }
  }
}
