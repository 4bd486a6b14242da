import type { AdmissionPolicy, AgentDefinition, BudgetPolicy } from '@agent-teams/core';
import type { JwtConfig } from '../auth/jwt-config.js';
import type { RateLimitOptions } from '../server/rate-limiter.js';

/** The validated configuration file (`--config`, JSON). */
export interface AgentTeamsConfig {
  /** Bearer token → owner id. */
  readonly tokens: ReadonlyMap<string, string>;
  /** The agent catalog, in file order. */
  readonly agents: readonly AgentDefinition[];
  /** `auth.jwt`: host-signed tokens, when the file sets it (its key is read by `loadConfig`). */
  readonly jwt?: JwtConfig;
  /** `rateLimit`: each owner's token bucket, when the file sets it. */
  readonly rateLimit?: RateLimitOptions;
  /** `http.maxBodyBytes`: the largest request body, when the file sets it. */
  readonly maxBodyBytes?: number;
  /** `admission`: slots, slots kept for others, per-owner caps and weights, when the file sets it. */
  readonly admission?: AdmissionPolicy;
  /** `budgets`: each owner's limits per UTC day, when the file sets it. */
  readonly budgets?: BudgetPolicy;
}

/** A configuration file that cannot be used; the message names the file and the JSON path. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
