import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type JwtSettings, loadJwtSettings } from '../auth/jwt-key.js';
import { type AgentTeamsConfig, ConfigError } from './agent-teams-config.js';
import { DEFAULT_DEV_TOKEN, DEV_OWNER, demoAgents } from './demo-config.js';
import { parseConfig } from './parse-config.js';

/** The configuration in effect, with the development token when one was made up. */
export interface LoadedConfig {
  readonly config: AgentTeamsConfig;
  /** Printed at start-up when the server runs without a configuration file. */
  readonly devToken: string | null;
  /** `auth.jwt` with its key read (the PEM file, the secret), or null when host-signed tokens are off. */
  readonly jwt: JwtSettings | null;
}

/** True for hosts only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * `AGENT_TEAMS_DEV_TOKEN`, or undefined when unset or blank (like every other variable). A token
 * with a space or control character is refused: no `Authorization: Bearer` header could carry it,
 * so the server would start with a token nobody can send.
 * @throws ConfigError naming the variable.
 */
export function devTokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.AGENT_TEAMS_DEV_TOKEN?.trim();
  if (token === undefined || token === '') return undefined;
  // Printable ASCII without spaces: what `auth.tokens` and an HTTP header value both accept.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      'AGENT_TEAMS_DEV_TOKEN must be printable ASCII without spaces (it is sent as a bearer token)',
    );
  }
  return token;
}

/**
 * Reads and validates the configuration file, or builds the demo configuration when `path` is
 * null: the three demo agents (scripted, or a real provider with `AGENT_TEAMS_DEMO_PROVIDER=openai`,
 * see `demoAgents`) and a development token. On loopback the token is the well-known
 * `dev-token` (or `AGENT_TEAMS_DEV_TOKEN`), so the README's first request can be copied; on any
 * other host a random one is made, because a guessable token must never guard a reachable server.
 * With `auth.jwt`, its key is read here too (a relative `publicKeyFile` from the file's folder),
 * so a missing key file or secret stops the start with a {@link ConfigError}.
 */
export async function loadConfig(
  path: string | null,
  opts: { host: string; env: NodeJS.ProcessEnv },
): Promise<LoadedConfig> {
  if (path === null) {
    const devToken =
      devTokenFromEnv(opts.env) ??
      (isLoopbackHost(opts.host) ? DEFAULT_DEV_TOKEN : `dev-${randomBytes(18).toString('base64url')}`);
    return { config: { tokens: new Map([[devToken, DEV_OWNER]]), agents: demoAgents(opts.env) }, devToken, jwt: null };
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the configuration file (${(error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const config = parseConfig(raw, path);
  const jwt = config.jwt
    ? await loadJwtSettings(config.jwt, { source: path, baseDir: dirname(path), env: opts.env })
    : null;
  return { config, devToken: null, jwt };
}
