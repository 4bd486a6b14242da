import { type AgentDefinition, asAgentId, Limits } from '@agent-teams/core';
import { SERVE_LIMITS } from '../cli-options.js';
import { A2A_SETTING_KEYS, A2aSettingsError, parseA2aSettings } from '../runtimes/a2a/a2a-settings.js';
import { OPENAI_SETTING_KEYS, OpenAiSettingsError, parseOpenAiSettings } from '../runtimes/openai/openai-settings.js';
import type { RateLimitOptions } from '../server/rate-limiter.js';
import { type AgentTeamsConfig, ConfigError } from './agent-teams-config.js';
import { parseAdmission } from './parse-admission.js';
import { parseAuth } from './parse-auth.js';
import { parseBudgets } from './parse-budgets.js';

/** Keys every agent may set; each runtime adds its own (kept in `settings`). */
const COMMON_AGENT_KEYS = new Set(['name', 'title', 'description', 'runtime', 'timeoutMs']);
/** The keys each runtime adds (see `runtimes/openai/openai-settings.ts`, `runtimes/a2a/a2a-settings.ts`). */
const RUNTIME_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  scripted: new Set(),
  openai: new Set(OPENAI_SETTING_KEYS),
  a2a: new Set(A2A_SETTING_KEYS),
};
const KNOWN_RUNTIMES = new Set(Object.keys(RUNTIME_KEYS));
/** Catalog names travel in URLs and logs: keep them simple. */
const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** The longest turn deadline accepted (one hour): longer would hold a slot for too long. */
const MAX_TIMEOUT_MS = 3_600_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireText(value: unknown, path: string, source: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(`${source}: ${path} must be a non-blank string`);
  }
  return value.trim();
}

function parseAgent(raw: unknown, index: number, source: string): AgentDefinition {
  const path = `agents[${index}]`;
  if (!isRecord(raw)) throw new ConfigError(`${source}: ${path} must be an object`);
  const name = requireText(raw.name, `${path}.name`, source);
  if (!AGENT_NAME.test(name)) {
    throw new ConfigError(`${source}: ${path}.name must match ${AGENT_NAME} (lowercase letters, digits, - and _)`);
  }
  const runtime = requireText(raw.runtime ?? 'scripted', `${path}.runtime`, source);
  if (!KNOWN_RUNTIMES.has(runtime)) {
    throw new ConfigError(`${source}: ${path}.runtime "${runtime}" is not one of ${[...KNOWN_RUNTIMES].join(', ')}`);
  }
  const timeoutMs = raw.timeoutMs ?? Limits.defaultTurnTimeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new ConfigError(`${source}: ${path}.timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (COMMON_AGENT_KEYS.has(key)) continue;
    if (RUNTIME_KEYS[runtime]?.has(key)) {
      settings[key] = value;
      continue;
    }
    throw new ConfigError(`${source}: ${path}.${key} is not a setting of runtime "${runtime}"`);
  }
  try {
    if (runtime === 'openai') parseOpenAiSettings(settings);
    if (runtime === 'a2a') parseA2aSettings(settings);
  } catch (error) {
    if (!(error instanceof OpenAiSettingsError || error instanceof A2aSettingsError)) throw error;
    throw new ConfigError(`${source}: ${path}.${error.key}: ${error.message}`);
  }
  return {
    id: asAgentId(name),
    name,
    title: raw.title === undefined ? name : requireText(raw.title, `${path}.title`, source),
    description: raw.description === undefined ? '' : String(raw.description),
    runtime,
    timeoutMs,
    settings,
  };
}

/** Keys the file may hold at its top level. */
const TOP_LEVEL_KEYS = new Set(['auth', 'agents', 'rateLimit', 'http', 'admission', 'budgets']);

/** A number within `range` at `path` (whole unless `fractional`). */
function requireNumber(
  value: unknown,
  path: string,
  range: { readonly min: number; readonly max: number },
  source: string,
  fractional = false,
): number {
  if (
    typeof value !== 'number' ||
    !(value >= range.min && value <= range.max) ||
    (!fractional && !Number.isInteger(value))
  ) {
    const kind = fractional ? 'a number' : 'an integer';
    throw new ConfigError(`${source}: ${path} must be ${kind} from ${range.min} to ${range.max}`);
  }
  return value;
}

/** `rateLimit: { perSecond, burst }`, both required when the key is present. */
function parseRateLimit(raw: unknown, source: string): RateLimitOptions {
  if (!isRecord(raw)) throw new ConfigError(`${source}: rateLimit must be an object { "perSecond": n, "burst": n }`);
  for (const key of Object.keys(raw)) {
    if (key !== 'perSecond' && key !== 'burst') throw new ConfigError(`${source}: rateLimit.${key} is not a setting`);
  }
  return {
    perSecond: requireNumber(raw.perSecond, 'rateLimit.perSecond', SERVE_LIMITS.rateLimitPerSecond, source, true),
    burst: requireNumber(raw.burst, 'rateLimit.burst', SERVE_LIMITS.rateLimitBurst, source),
  };
}

/** `http: { maxBodyBytes }`. */
function parseHttp(raw: unknown, source: string): number | undefined {
  if (!isRecord(raw)) throw new ConfigError(`${source}: http must be an object { "maxBodyBytes": n }`);
  for (const key of Object.keys(raw)) {
    if (key !== 'maxBodyBytes') throw new ConfigError(`${source}: http.${key} is not a setting`);
  }
  return raw.maxBodyBytes === undefined
    ? undefined
    : requireNumber(raw.maxBodyBytes, 'http.maxBodyBytes', SERVE_LIMITS.maxBodyBytes, source);
}

/**
 * Validates a parsed configuration file.
 * @param source - the file name, used in error messages.
 * @throws ConfigError naming the offending JSON path.
 */
export function parseConfig(raw: unknown, source: string): AgentTeamsConfig {
  if (!isRecord(raw)) throw new ConfigError(`${source}: the configuration must be a JSON object`);
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.has(key)) throw new ConfigError(`${source}: unknown top-level key "${key}"`);
  }
  const auth = parseAuth(raw.auth, source);
  if (!Array.isArray(raw.agents) || raw.agents.length === 0) {
    throw new ConfigError(`${source}: agents must be a non-empty array`);
  }
  const agents = raw.agents.map((agent, index) => parseAgent(agent, index, source));
  const seen = new Set<string>();
  for (const agent of agents) {
    if (seen.has(agent.name)) throw new ConfigError(`${source}: agent name "${agent.name}" is used twice`);
    seen.add(agent.name);
  }
  const maxBodyBytes = raw.http === undefined ? undefined : parseHttp(raw.http, source);
  return {
    ...auth,
    agents,
    ...(raw.rateLimit === undefined ? {} : { rateLimit: parseRateLimit(raw.rateLimit, source) }),
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    ...(raw.admission === undefined ? {} : { admission: parseAdmission(raw.admission, source) }),
    ...(raw.budgets === undefined ? {} : { budgets: parseBudgets(raw.budgets, source) }),
  };
}
