import type { KeyObject } from 'node:crypto';

/** HMAC algorithms: accepted only with a shared secret (`secretEnv`). */
export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;

/** Public-key algorithms: accepted only with a public key (`publicKeyFile` or `jwksUrl`). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** A signature algorithm the server may be configured to accept (`none` never is). */
export type JwtAlgorithm = (typeof HMAC_ALGORITHMS)[number] | (typeof ASYMMETRIC_ALGORITHMS)[number];

/** The algorithms accepted when `auth.jwt.algorithms` is not set, by kind of key. */
export const DEFAULT_ALGORITHMS = {
  secret: ['HS256'],
  publicKey: ['ES256', 'RS256', 'EdDSA'],
} as const satisfies Record<string, readonly JwtAlgorithm[]>;

/** True when `name` is an HMAC algorithm. */
export function isHmacAlgorithm(name: string): boolean {
  return (HMAC_ALGORITHMS as readonly string[]).includes(name);
}

/** True when `name` is a public-key algorithm. */
export function isAsymmetricAlgorithm(name: string): boolean {
  return (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(name);
}

/** The curve each ES algorithm signs with, as Node names it. */
const EC_CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/**
 * The algorithms among `allowed` that `key` can verify: RS and PS for RSA, PS for RSA-PSS, the ES
 * algorithm of the key's curve, EdDSA and Ed25519 for Ed25519.
 *
 * @remarks Narrowing at start-up turns "this key never verifies anything" into a start-up error
 * instead of every token being refused later.
 */
export function algorithmsForKey(key: KeyObject, allowed: readonly JwtAlgorithm[]): JwtAlgorithm[] {
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return allowed.filter((alg) => {
    if (type === 'rsa') return alg.startsWith('RS') || alg.startsWith('PS');
    if (type === 'rsa-pss') return alg.startsWith('PS');
    if (type === 'ec') return EC_CURVES[alg] !== undefined && EC_CURVES[alg] === curve;
    if (type === 'ed25519') return alg === 'EdDSA' || alg === 'Ed25519';
    return false;
  });
}
