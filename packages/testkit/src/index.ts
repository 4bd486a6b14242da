// The one barrel of @agent-teams/testkit: explicit named exports only.

export type { OpenContractStore, OpenedContractStore, StoreContractOptions } from './contract/store-harness.js';
export {
  describeStoreRoleContract,
  describeTeamStoreContract,
  STORE_ROLE_CASES,
} from './contract/team-store-contract.js';
export { FAKE_CLOCK_START_MS, FakeClock } from './fakes/fake-clock.js';
export type { LogEntry } from './fakes/memory-logger.js';
export { MemoryLogger } from './fakes/memory-logger.js';
export type { MemoryTeamStore, MemoryTeamStoreOptions } from './fakes/memory-team-store.js';
export { createMemoryTeamStore } from './fakes/memory-team-store.js';
export { SequentialIds } from './fakes/sequential-ids.js';
export type { AgentSpec } from './fakes/static-catalog.js';
export { agentDefinition, DEMO_AGENTS, StaticCatalog } from './fakes/static-catalog.js';
export { REACHABLE_PHASES } from './reachable-phases.js';
export type { JobZoo, ZooPhase } from './zoo.js';
export { makeJobZoo } from './zoo.js';
