import { asOwnerId, type Clock, type Logger, type OwnerId } from '@agent-teams/core';
import { bearerToken } from '../server/bearer-token.js';
import type { JwksLimits } from './jwks-key-set.js';
import type { JwtSettings } from './jwt-key.js';
import { createJwtVerifier } from './jwt-verifier.js';

/**
 * The longest bearer token looked at: far above a real JWT (a few hundred bytes to 2 KiB), and
 * short enough that a hostile header costs nothing to refuse.
 */
export const MAX_BEARER_CHARS = 8_192;

/**
 * A compact JWS: three base64url segments. Other bearer values (member-run tokens, mistyped
 * static tokens) are not host tokens and are answered null without a log line: the caller may
 * still resolve them as member-run tokens.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Who a request or socket acts for, and until when (`null`: a static token, no expiry). */
export interface Credential {
  readonly owner: OwnerId;
  readonly expiresAtMs: number | null;
}

/** Resolves `Authorization` values (HTTP header or `connection_init` payload) to owners. */
export interface Authenticator {
  /**
   * The credential of a `Bearer <token>` value: a static token from `auth.tokens` first, then a
   * host-signed JWT when `auth.jwt` is set. Null for none, an unknown token or a refused JWT; a
   * JWT's refusal reason is logged for operators (never the token), and callers answer
   * UNAUTHENTICATED without it. `log`: where that line goes, the request's own logger (its
   * `requestId`); the authenticator's logger when absent.
   */
  authenticate(authorization: string | null, log?: Logger): Promise<Credential | null>;
  /**
   * Synchronous re-check for a socket at delivery time: a static token must still map to the
   * same owner (it may have been removed), a JWT must not be past its expiry.
   */
  stillValid(authorization: string | null, credential: Credential): boolean;
  /** Milliseconds until `credential`'s authority ends on this authenticator's clock; null: never. */
  msLeft(credential: Credential): number | null;
}

/** What {@link createAuthenticator} is built from. */
export interface AuthenticatorDeps {
  /** Static bearer token → owner id (`auth.tokens`). */
  readonly tokens: ReadonlyMap<string, string>;
  /** `auth.jwt` with its key, or null/absent when host-signed tokens are off. */
  readonly jwt?: JwtSettings | null;
  readonly clock: Clock;
  readonly logger: Logger;
  /** JWKS fetch limits and fetch function (tests); defaults `JWKS_LIMITS` and global fetch. */
  readonly jwks?: { readonly limits?: Partial<JwksLimits>; readonly fetch?: typeof fetch };
}

/** Builds the one {@link Authenticator} every endpoint (GraphQL, WebSocket, MCP, A2A) uses. */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const verify = deps.jwt
    ? createJwtVerifier({
        settings: deps.jwt,
        clock: deps.clock,
        logger: deps.logger,
        ...(deps.jwks ? { jwks: deps.jwks } : {}),
      })
    : null;
  const refuse = (reason: string, log: Logger = deps.logger): null => {
    log.warn('bearer token refused', { reason });
    return null;
  };
  return {
    async authenticate(authorization, log) {
      const token = bearerToken(authorization);
      if (token === null) return null;
      const owner = deps.tokens.get(token);
      if (owner !== undefined) return { owner: asOwnerId(owner), expiresAtMs: null };
      if (verify === null) return null;
      if (token.length > MAX_BEARER_CHARS) return refuse(`longer than ${MAX_BEARER_CHARS} characters`, log);
      if (!COMPACT_JWS.test(token)) return null;
      const verdict = await verify(token);
      return verdict.ok ? { owner: verdict.owner, expiresAtMs: verdict.expiresAtMs } : refuse(verdict.reason, log);
    },
    stillValid(authorization, credential) {
      if (credential.expiresAtMs !== null) return deps.clock.nowMs() < credential.expiresAtMs;
      const token = bearerToken(authorization);
      return token !== null && deps.tokens.get(token) === credential.owner;
    },
    msLeft(credential) {
      return credential.expiresAtMs === null ? null : credential.expiresAtMs - deps.clock.nowMs();
    },
  };
}
