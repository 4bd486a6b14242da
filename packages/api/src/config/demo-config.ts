import { type AgentDefinition, asAgentId, Limits } from '@agent-teams/core';

/** The owner id of the development token. */
export const DEV_OWNER = 'dev';

/** The development token used on loopback when no configuration file is given. */
export const DEFAULT_DEV_TOKEN = 'dev-token';

function demoAgent(name: string, title: string, description: string): AgentDefinition {
  return {
    id: asAgentId(name),
    name,
    title,
    description,
    runtime: 'scripted',
    timeoutMs: Limits.defaultTurnTimeoutMs,
    settings: {},
  };
}

/** The three built-in demo agents (the contract's example configuration). */
export const DEMO_AGENTS: readonly AgentDefinition[] = [
  demoAgent('researcher', 'Research', 'Find and check source evidence'),
  demoAgent('reviewer', 'Review', 'Independent quality review'),
  demoAgent('writer', 'Writer', 'Write clear reports'),
];
