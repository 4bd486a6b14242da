import type { ServeOptions } from '../cli-options.js';
import { DEFAULT_MAX_BODY_BYTES } from '../server/body-limit.js';
import { RATE_LIMIT_DEFAULTS, type RateLimitOptions } from '../server/rate-limiter.js';
import type { AgentTeamsConfig } from './agent-teams-config.js';
import { DEFAULT_DEV_TOKEN } from './demo-config.js';
import { isLoopbackHost } from './load-config.js';

/** The HTTP limits and token hint `serve` builds the server with (part of `createApp`'s `http`). */
export interface ServeHttpSettings {
  readonly maxBodyBytes: number;
  readonly rateLimit: RateLimitOptions;
  /** Where the development token was printed: said on loopback only, never the token itself. */
  readonly tokenHint?: string;
  /**
   * True with the well-known development token on the loopback: requests addressed to another
   * host name are refused (DNS rebinding; `server/loopback-hosts.ts`).
   */
  readonly loopbackHostsOnly?: true;
}

/** What GraphiQL and the demo page say on loopback when a development token was printed. */
export const DEV_TOKEN_HINT = 'The development token was printed in the terminal where the server started.';

/**
 * Merges the HTTP settings: flag, then environment (both in `options`), then the config file,
 * then the defaults (1 MiB bodies, 50 operations per second with bursts of 200 per owner).
 */
export function httpSettings(
  options: ServeOptions,
  config: AgentTeamsConfig,
  devToken: string | null,
): ServeHttpSettings {
  const fileRate = config.rateLimit ?? RATE_LIMIT_DEFAULTS;
  return {
    maxBodyBytes: options.maxBodyBytes ?? config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    rateLimit: {
      perSecond: options.rateLimitPerSecond ?? fileRate.perSecond,
      burst: options.rateLimitBurst ?? fileRate.burst,
    },
    ...(devToken !== null && isLoopbackHost(options.host) ? { tokenHint: DEV_TOKEN_HINT } : {}),
    ...(devToken === DEFAULT_DEV_TOKEN && isLoopbackHost(options.host) ? { loopbackHostsOnly: true } : {}),
  };
}
