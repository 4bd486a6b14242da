import { createPublicKey, type KeyObject } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { JwtAlgorithm } from '../../src/auth/jwt-algorithms.js';
import { JWT_DEFAULTS } from '../../src/auth/jwt-config.js';
import type { JwtKey, JwtSettings } from '../../src/auth/jwt-key.js';

/** The issuer and audience every test host signs for. */
export const HOST_ISSUER = 'https://host.example';
export const HOST_AUDIENCE = 'agent-teams';
/** An HS256 secret of the required 32 bytes. */
export const HOST_SECRET = 'host-secret-of-thirty-two-bytes!';

/** A host's signing key pair, as a host would hold it. */
export interface HostKeyPair {
  readonly alg: JwtAlgorithm;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: KeyObject;
  /** The public key as SPKI PEM (what `publicKeyFile` holds). */
  readonly publicPem: string;
  /** The public key as a JWK with its `kid` and `alg` (what a JWKS lists). */
  readonly publicJwk: JWK;
}

/** Makes a fresh key pair for `alg` (ES256, RS256, EdDSA, ...). */
export async function makeHostKeys(alg: JwtAlgorithm = 'ES256', kid = `key-${alg}`): Promise<HostKeyPair> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const publicPem = await exportSPKI(pair.publicKey);
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    publicKey: createPublicKey(publicPem),
    publicPem,
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg },
  };
}

/** What a test token says; every field has a valid default. */
export interface HostTokenClaims {
  readonly sub?: unknown;
  readonly iss?: string;
  readonly aud?: string;
  /** Seconds since the epoch; default: `nowMs` rounded down. */
  readonly iat?: number | null;
  /** Seconds since the epoch; default: iat + 300. `null` leaves it out. */
  readonly exp?: number | null;
  readonly nbf?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Signs a token as a host would (jose's `SignJWT`), with `key` (a key pair, or the raw bytes of
 * an HMAC secret) at time `nowMs`.
 */
export async function signHostToken(
  key: HostKeyPair | { readonly alg: JwtAlgorithm; readonly secret: Uint8Array; readonly kid?: string },
  claims: HostTokenClaims = {},
  nowMs: number = Date.now(),
): Promise<string> {
  const iat = claims.iat === undefined ? Math.floor(nowMs / 1000) : claims.iat;
  const exp = claims.exp === undefined ? (iat ?? Math.floor(nowMs / 1000)) + 300 : claims.exp;
  const payload: Record<string, unknown> = {
    iss: claims.iss ?? HOST_ISSUER,
    aud: claims.aud ?? HOST_AUDIENCE,
    ...('sub' in claims ? (claims.sub === undefined ? {} : { sub: claims.sub }) : { sub: 'user-1' }),
    ...(iat === null ? {} : { iat }),
    ...(exp === null ? {} : { exp }),
    ...(claims.nbf === undefined ? {} : { nbf: claims.nbf }),
    ...claims.extra,
  };
  const signer = new SignJWT(payload).setProtectedHeader({ alg: key.alg, ...(key.kid ? { kid: key.kid } : {}) });
  return signer.sign('secret' in key ? key.secret : key.privateKey);
}

/** `auth.jwt` settings for tests: the contract's example values with `key`. */
export function hostJwtSettings(key: JwtKey, overrides: Partial<Omit<JwtSettings, 'key'>> = {}): JwtSettings {
  return {
    issuer: HOST_ISSUER,
    audience: HOST_AUDIENCE,
    algorithms: key.kind === 'secret' ? ['HS256'] : ['ES256', 'RS256', 'EdDSA'],
    ownerClaim: JWT_DEFAULTS.ownerClaim,
    maxLifetimeSeconds: JWT_DEFAULTS.maxLifetimeSeconds,
    clockToleranceSeconds: JWT_DEFAULTS.clockToleranceSeconds,
    ...overrides,
    key,
  };
}
