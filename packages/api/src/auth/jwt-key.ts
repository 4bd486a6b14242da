import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError } from '../config/agent-teams-config.js';
import { algorithmsForKey } from './jwt-algorithms.js';
import type { JwtConfig } from './jwt-config.js';

/** The key material tokens are verified with. */
export type JwtKey =
  | { readonly kind: 'publicKey'; readonly key: KeyObject }
  | { readonly kind: 'jwks'; readonly url: URL }
  | { readonly kind: 'secret'; readonly secret: Uint8Array };

/** `auth.jwt` ready to verify with: the claim rules and the key they are checked against. */
export interface JwtSettings extends Omit<JwtConfig, 'source'> {
  readonly key: JwtKey;
}

/**
 * RFC 7518 §3.2: an HMAC key must be at least as long as the hash output, so the shortest
 * secret accepted is that of the longest hash among the allowed algorithms.
 */
const HMAC_KEY_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

/**
 * Reads the key of `config`: the PEM file (relative paths from `baseDir`, the configuration
 * file's folder), the secret from `env`, or nothing yet for a JWKS URL (fetched on first use).
 *
 * @throws ConfigError naming `source` and what is wrong: a missing file, a PEM that is not a public
 * key (SPKI), a key no allowed algorithm can use, an unset or short secret.
 */
export async function loadJwtSettings(
  config: JwtConfig,
  opts: { readonly source: string; readonly baseDir: string; readonly env: NodeJS.ProcessEnv },
): Promise<JwtSettings> {
  const { source: _source, ...rules } = config;
  const fail = (message: string): never => {
    throw new ConfigError(`${opts.source}: auth.jwt.${message}`);
  };
  const keySource = config.source;
  if (keySource.kind === 'jwksUrl') return { ...rules, key: { kind: 'jwks', url: keySource.url } };
  if (keySource.kind === 'secretEnv') {
    const value = opts.env[keySource.name] ?? '';
    const bytes = new TextEncoder().encode(value);
    const needed = Math.max(...config.algorithms.map((alg) => HMAC_KEY_BYTES[alg] ?? 0));
    if (value === '') fail(`secretEnv: the environment variable ${keySource.name} is not set`);
    if (bytes.length < needed) {
      fail(
        `secretEnv: ${keySource.name} holds ${bytes.length} bytes; ${config.algorithms.join('/')} needs at least ${needed}`,
      );
    }
    return { ...rules, key: { kind: 'secret', secret: bytes } };
  }
  const path = resolve(opts.baseDir, keySource.path);
  const pem = await readFile(path, 'utf8').catch((error: Error) =>
    fail(`publicKeyFile: cannot read ${path} (${error.message})`),
  );
  // A private key would also parse (Node derives its public half); refuse it so it is not deployed.
  if (!/-----BEGIN PUBLIC KEY-----/.test(pem)) fail(`publicKeyFile: ${path} is not a PEM public key (SPKI)`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem', type: 'spki' });
  } catch (error) {
    return fail(`publicKeyFile: ${path} is not a usable public key (${(error as Error).message})`);
  }
  const algorithms = algorithmsForKey(key, config.algorithms);
  if (algorithms.length === 0) {
    fail(`algorithms: none of ${config.algorithms.join(', ')} can verify the ${key.asymmetricKeyType} key in ${path}`);
  }
  return { ...rules, algorithms, key: { kind: 'publicKey', key } };
}
