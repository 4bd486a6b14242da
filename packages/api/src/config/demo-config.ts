import { type AgentDefinition, asAgentId, Limits } from '@agent-teams/core';
import { OpenAiSettingsError, parseOpenAiSettings } from '../runtimes/openai/openai-settings.js';
import { ConfigError } from './agent-teams-config.js';

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

/** Defaults of the demo's real-provider mode (`AGENT_TEAMS_DEMO_PROVIDER=openai`). */
export const DEMO_OPENAI_DEFAULTS = {
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  apiKeyEnv: 'OPENAI_API_KEY',
} as const;

/** The variable each demo setting comes from, for the error naming it. */
const DEMO_SETTING_VARIABLES: Readonly<Record<string, string>> = {
  baseUrl: 'AGENT_TEAMS_OPENAI_BASE_URL',
  model: 'AGENT_TEAMS_OPENAI_MODEL',
  apiKeyEnv: 'AGENT_TEAMS_OPENAI_API_KEY_ENV',
};

/**
 * Validates the demo's provider settings as a configuration file's would be, so a malformed URL or
 * key variable name stops the start instead of failing every turn later.
 * @throws ConfigError naming the environment variable at fault.
 */
function checkDemoSettings(settings: Readonly<Record<string, unknown>>): void {
  try {
    parseOpenAiSettings(settings);
  } catch (error) {
    if (!(error instanceof OpenAiSettingsError)) throw error;
    const variable = DEMO_SETTING_VARIABLES[error.key] ?? 'AGENT_TEAMS_DEMO_PROVIDER';
    throw new ConfigError(`${variable}: ${error.message}`);
  }
}

/**
 * The demo agents for this environment: scripted by default; with
 * `AGENT_TEAMS_DEMO_PROVIDER=openai`, the same three agents on the `openai` runtime, with
 * `AGENT_TEAMS_OPENAI_BASE_URL`, `AGENT_TEAMS_OPENAI_MODEL` and `AGENT_TEAMS_OPENAI_API_KEY_ENV`
 * overriding {@link DEMO_OPENAI_DEFAULTS} (e.g. a local Ollama at `http://127.0.0.1:11434/v1`).
 */
export function demoAgents(env: Readonly<Record<string, string | undefined>>): readonly AgentDefinition[] {
  const provider = env.AGENT_TEAMS_DEMO_PROVIDER?.trim().toLowerCase();
  if (provider === undefined || provider === '' || provider === 'scripted') return DEMO_AGENTS;
  if (provider !== 'openai') {
    throw new ConfigError(`AGENT_TEAMS_DEMO_PROVIDER must be "scripted" or "openai", not "${provider}"`);
  }
  const settings = {
    baseUrl: env.AGENT_TEAMS_OPENAI_BASE_URL?.trim() || DEMO_OPENAI_DEFAULTS.baseUrl,
    model: env.AGENT_TEAMS_OPENAI_MODEL?.trim() || DEMO_OPENAI_DEFAULTS.model,
    apiKeyEnv: env.AGENT_TEAMS_OPENAI_API_KEY_ENV?.trim() || DEMO_OPENAI_DEFAULTS.apiKeyEnv,
  };
  checkDemoSettings(settings);
  return DEMO_AGENTS.map((agent) => ({
    ...agent,
    runtime: 'openai',
    settings: { ...settings, systemPrompt: `You are the team's ${agent.title} member: ${agent.description}.` },
  }));
}
