import { asOwnerId, type Clock, codePointLength, type Logger, type OwnerId } from '@agent-teams/core';
import { errors, type JWTPayload, type JWTVerifyOptions, type JWTVerifyResult, jwtVerify } from 'jose';
import { createJwksKeySet, type JwksLimits } from './jwks-key-set.js';
import type { JwtSettings } from './jwt-key.js';
import { isUsableOwnerText } from './owner-text.js';
import { refusalReason } from './refusal-reason.js';

/** The longest owner id a token may carry, in code points. */
export const OWNER_CLAIM_MAX_CHARS = 128;

/** A verified token's owner and the instant its authority ends, or why it was refused. */
export type JwtVerdict =
  | { readonly ok: true; readonly owner: OwnerId; readonly expiresAtMs: number }
  | { readonly ok: false; readonly reason: string };

/** What {@link createJwtVerifier} is built from. */
export interface JwtVerifierDeps {
  readonly settings: JwtSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Only for a JWKS URL: limits (defaults `JWKS_LIMITS`) and the fetch to use. */
  readonly jwks?: { readonly limits?: Partial<JwksLimits>; readonly fetch?: typeof fetch };
}

/**
 * Verifies host-signed tokens: signature by an allowed algorithm, `iss`, `aud`, `exp`, `nbf`,
 * `iat` no later than now and at most `maxLifetimeSeconds` before `exp` (all with the clock
 * tolerance), and the owner claim (a non-blank, well-formed string of at most
 * {@link OWNER_CLAIM_MAX_CHARS} code points).
 *
 * @remarks `expiresAtMs` is `exp` plus the tolerance: the instant this same check starts refusing
 * the token, so a socket keeps its authority exactly as long as HTTP would accept the token.
 * The owner id is taken as is (no trimming or case folding): two spellings are two owners, and
 * never one person's data under another's id.
 */
export function createJwtVerifier(deps: JwtVerifierDeps): (token: string) => Promise<JwtVerdict> {
  const { settings, clock } = deps;
  const { key } = settings;
  const verificationKey =
    key.kind === 'jwks'
      ? createJwksKeySet({ url: key.url, clock, logger: deps.logger, ...deps.jwks })
      : key.kind === 'secret'
        ? key.secret
        : key.key;
  const toleranceMs = settings.clockToleranceSeconds * 1000;
  return async (token) => {
    const nowMs = clock.nowMs();
    let payload: JWTPayload;
    try {
      ({ payload } = await verifyWithEachCandidate(token, verificationKey as Uint8Array, {
        algorithms: [...settings.algorithms],
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: settings.clockToleranceSeconds,
        currentDate: new Date(nowMs),
        requiredClaims: ['exp', 'iat'],
      }));
    } catch (error) {
      return { ok: false, reason: refusalReason(error) };
    }
    // jose checked both are numbers (required above) and that exp is not past.
    const exp = payload.exp as number;
    const iat = payload.iat as number;
    if (iat * 1000 > nowMs + toleranceMs) return { ok: false, reason: 'issued in the future' };
    if (exp - iat > settings.maxLifetimeSeconds) return { ok: false, reason: 'lifetime above maxLifetimeSeconds' };
    const owner = ownerOf(payload[settings.ownerClaim]);
    if (owner === null) return { ok: false, reason: `unusable ${settings.ownerClaim} claim` };
    return { ok: true, owner, expiresAtMs: exp * 1000 + toleranceMs };
  };
}

/**
 * `jwtVerify`, trying in turn each key of a key set that fits a token without `kid`.
 *
 * @remarks jose refuses such a token as soon as two keys of its algorithm are listed, which is
 * exactly the documented rotation (publish the new key beside the old one, then sign with it): a
 * host that signs without `kid` would be refused for the whole overlap. A candidate whose
 * signature fails is skipped; any other refusal (expired, wrong audience) is that token's answer.
 * The candidates are the host's own set, at most `JWKS_LIMITS.maxBytes` of it.
 */
async function verifyWithEachCandidate(
  token: string,
  key: Uint8Array,
  options: JWTVerifyOptions,
): Promise<JWTVerifyResult> {
  try {
    return await jwtVerify(token, key, options);
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const candidate of error) {
      try {
        return await jwtVerify(token, candidate, options);
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/**
 * The owner id a claim value names, or null for a missing, malformed (`isUsableOwnerText`) or too
 * long one.
 */
function ownerOf(value: unknown): OwnerId | null {
  if (typeof value !== 'string' || !isUsableOwnerText(value)) return null;
  return codePointLength(value) > OWNER_CLAIM_MAX_CHARS ? null : asOwnerId(value);
}
