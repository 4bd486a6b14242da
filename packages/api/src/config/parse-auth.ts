import { type JwtConfig, parseJwtConfig } from '../auth/jwt-config.js';
import { isUsableOwnerText } from '../auth/owner-text.js';
import { ConfigError } from './agent-teams-config.js';

/** The `auth` section: static bearer tokens and host-signed tokens. */
export interface AuthConfig {
  /** Bearer token → owner id. */
  readonly tokens: ReadonlyMap<string, string>;
  /** Host-signed tokens (`auth.jwt`), when set. */
  readonly jwt?: JwtConfig;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates `auth`: `tokens` (an object mapping bearer tokens to owner ids) and `jwt`, at least
 * one of them; any other key is refused.
 * @throws ConfigError naming `source` and the key at fault.
 */
export function parseAuth(raw: unknown, source: string): AuthConfig {
  const tokens = new Map<string, string>();
  if (raw === undefined) return { tokens };
  if (!isRecord(raw) || (raw.tokens === undefined && raw.jwt === undefined)) {
    throw new ConfigError(`${source}: auth must be an object with tokens (bearer token → owner id) and/or jwt`);
  }
  for (const key of Object.keys(raw)) {
    if (key !== 'tokens' && key !== 'jwt') throw new ConfigError(`${source}: auth.${key} is not a setting`);
  }
  if (raw.tokens !== undefined) {
    if (!isRecord(raw.tokens)) {
      throw new ConfigError(`${source}: auth.tokens must be an object mapping bearer tokens to owner ids`);
    }
    for (const [token, owner] of Object.entries(raw.tokens)) {
      if (token.trim() === '' || /\s/.test(token)) throw new ConfigError(`${source}: auth.tokens has a blank token`);
      if (typeof owner !== 'string' || owner.trim() === '') {
        throw new ConfigError(`${source}: auth.tokens["${token}"] must be a non-blank string`);
      }
      if (!isUsableOwnerText(owner)) {
        throw new ConfigError(
          `${source}: auth.tokens["${token}"] must not hold a control character or an unpaired surrogate`,
        );
      }
      tokens.set(token, owner.trim());
    }
  }
  return raw.jwt === undefined ? { tokens } : { tokens, jwt: parseJwtConfig(raw.jwt, source) };
}
