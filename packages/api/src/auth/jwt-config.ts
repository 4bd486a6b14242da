import { ConfigError } from '../config/agent-teams-config.js';
import { isLoopbackHost } from '../config/load-config.js';
import {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_ALGORITHMS,
  HMAC_ALGORITHMS,
  isAsymmetricAlgorithm,
  isHmacAlgorithm,
  type JwtAlgorithm,
} from './jwt-algorithms.js';

/** Every key `auth.jwt` may hold; any other is refused at start-up. */
export const JWT_CONFIG_KEYS = [
  'issuer',
  'audience',
  'publicKeyFile',
  'jwksUrl',
  'secretEnv',
  'algorithms',
  'ownerClaim',
  'maxLifetimeSeconds',
  'clockToleranceSeconds',
] as const;

/** Values used when `auth.jwt` leaves a key out. */
export const JWT_DEFAULTS = { ownerClaim: 'sub', maxLifetimeSeconds: 3_600, clockToleranceSeconds: 5 } as const;

/**
 * Bounds of the numeric settings: a host token lives at most a day (short-lived is the point),
 * and clocks may disagree by at most five minutes.
 */
export const JWT_BOUNDS = {
  maxLifetimeSeconds: { min: 1, max: 86_400 },
  clockToleranceSeconds: { min: 0, max: 300 },
} as const;

/**
 * Claims that can never name a person: a token's issuer or audience is the same for every user
 * of a host, so taking the owner from one would merge all of them into a single owner.
 */
const NON_OWNER_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where the verification key comes from: exactly one per configuration. */
export type JwtKeySource =
  | { readonly kind: 'publicKeyFile'; readonly path: string }
  | { readonly kind: 'jwksUrl'; readonly url: URL }
  | { readonly kind: 'secretEnv'; readonly name: string };

/** The validated `auth.jwt` section, before its key is read. */
export interface JwtConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly algorithms: readonly JwtAlgorithm[];
  readonly ownerClaim: string;
  readonly maxLifetimeSeconds: number;
  readonly clockToleranceSeconds: number;
  readonly source: JwtKeySource;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads and validates `auth.jwt`; every error names `source` and the key at fault. */
export function parseJwtConfig(raw: unknown, source: string): JwtConfig {
  const fail = (message: string): never => {
    throw new ConfigError(`${source}: auth.jwt${message}`);
  };
  if (!isRecord(raw)) return fail(' must be an object');
  const known: readonly string[] = JWT_CONFIG_KEYS;
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) fail(`.${key} is not a setting (known: ${JWT_CONFIG_KEYS.join(', ')})`);
  }
  const text = (key: string): string => {
    const value = raw[key];
    if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
      return fail(`.${key} must be a non-blank string without surrounding spaces`);
    }
    return value;
  };
  const whole = (key: keyof typeof JWT_BOUNDS): number => {
    const value = raw[key] ?? JWT_DEFAULTS[key];
    const { min, max } = JWT_BOUNDS[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return fail(`.${key} must be an integer from ${min} to ${max}`);
    }
    return value;
  };
  const keySource = parseKeySource(raw, fail, text);
  const ownerClaim = raw.ownerClaim === undefined ? JWT_DEFAULTS.ownerClaim : text('ownerClaim');
  if (NON_OWNER_CLAIMS.has(ownerClaim)) {
    fail(`.ownerClaim cannot be "${ownerClaim}": it is the same for every user of the host`);
  }
  return {
    issuer: text('issuer'),
    audience: text('audience'),
    algorithms: parseAlgorithms(raw.algorithms, keySource.kind === 'secretEnv', fail),
    ownerClaim,
    maxLifetimeSeconds: whole('maxLifetimeSeconds'),
    clockToleranceSeconds: whole('clockToleranceSeconds'),
    source: keySource,
  };
}

function parseKeySource(
  raw: Record<string, unknown>,
  fail: (message: string) => never,
  text: (key: string) => string,
): JwtKeySource {
  // `null` reads as "not this source", so a file can list every key and fill in one.
  const given = (['publicKeyFile', 'jwksUrl', 'secretEnv'] as const).filter((key) => raw[key] != null);
  if (given.length !== 1) {
    fail(
      `: set exactly one of publicKeyFile, jwksUrl or secretEnv (found ${given.length === 0 ? 'none' : given.join(', ')})`,
    );
  }
  if (given[0] === 'publicKeyFile') return { kind: 'publicKeyFile', path: text('publicKeyFile') };
  if (given[0] === 'secretEnv') {
    const name = text('secretEnv');
    if (!ENV_NAME.test(name)) fail('.secretEnv must name an environment variable (letters, digits, _)');
    return { kind: 'secretEnv', name };
  }
  const href = text('jwksUrl');
  const url = URL.canParse(href) ? new URL(href) : fail('.jwksUrl must be an absolute URL');
  // Keys fetched in the clear could be swapped on the way: plain http only to this machine.
  const loopback = isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    fail('.jwksUrl must use https (plain http only on a loopback host)');
  }
  if (url.username !== '' || url.password !== '') fail('.jwksUrl must not carry credentials');
  return { kind: 'jwksUrl', url };
}

function parseAlgorithms(raw: unknown, secret: boolean, fail: (message: string) => never): JwtAlgorithm[] {
  if (raw === undefined) return [...(secret ? DEFAULT_ALGORITHMS.secret : DEFAULT_ALGORITHMS.publicKey)];
  if (!Array.isArray(raw) || raw.length === 0) return fail('.algorithms must be a non-empty array of names');
  const fits = secret ? isHmacAlgorithm : isAsymmetricAlgorithm;
  const names = secret ? HMAC_ALGORITHMS : ASYMMETRIC_ALGORITHMS;
  for (const name of raw) {
    if (typeof name !== 'string') fail('.algorithms must hold strings');
    if (/^none$/i.test(name)) fail('.algorithms can never include "none" (unsigned tokens)');
    // An HMAC algorithm with a public key would let anyone sign with that (public) key as the secret.
    if (!fits(name)) {
      fail(
        `.algorithms: "${name}" is not usable with ${secret ? 'secretEnv' : 'a public key'} (use ${names.join(', ')})`,
      );
    }
  }
  return [...new Set(raw as JwtAlgorithm[])];
}
