import { errors } from 'jose';
import { JwksUnavailableError } from './jwks-key-set.js';

/** Operator-facing reasons for jose's error codes; clients only ever see UNAUTHENTICATED. */
const REASONS: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'expired',
  ERR_JOSE_ALG_NOT_ALLOWED: 'algorithm not allowed',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'bad signature',
  ERR_JWKS_NO_MATCHING_KEY: 'no key in the key set for its kid',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'several keys match (no kid)',
  ERR_JWS_INVALID: 'malformed',
  ERR_JWT_INVALID: 'malformed',
  ERR_JOSE_NOT_SUPPORTED: 'unsupported algorithm or key',
};

/** Claim checks by name, for jose's claim-validation failures. */
const CLAIM_REASONS: Readonly<Record<string, string>> = {
  nbf: 'not yet valid',
  iss: 'wrong issuer',
  aud: 'wrong audience',
};

/**
 * Why jose refused a token, in a few words for the operator's log (never the token, never a
 * claim value).
 */
export function refusalReason(error: unknown): string {
  if (error instanceof JwksUnavailableError) return 'key set unavailable';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `missing ${error.claim} claim`;
    return CLAIM_REASONS[error.claim] ?? `invalid ${error.claim} claim`;
  }
  if (error instanceof errors.JOSEError) return REASONS[error.code] ?? `refused (${error.code})`;
  // jose throws TypeError when a key cannot serve the token's algorithm (an HMAC token against a public key).
  if (error instanceof TypeError) return 'key does not fit the algorithm';
  return 'unverifiable';
}
