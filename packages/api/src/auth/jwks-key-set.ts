import type { Clock, Logger } from '@agent-teams/core';
import { createLocalJWKSet, errors, type FlattenedJWSInput, type JWSHeaderParameters } from 'jose';
import { readBoundedText } from '../server/read-bounded-text.js';

/**
 * How the host's key set is fetched and kept.
 *
 * @remarks `cooldownMs` is what stops a flood of tokens with made-up `kid`s from turning into a
 * flood of fetches: after any fetch (good or failed) the next one waits this long, so the host's
 * endpoint sees at most one request per cooldown whatever arrives. A rotation is still picked up
 * at once when the previous fetch is older than that, which is the usual case (keys rotate in
 * days, not seconds). `maxBytes` is far above a real set (ten RSA-4096 keys are about 8 KiB).
 */
export const JWKS_LIMITS = {
  timeoutMs: 5_000,
  maxBytes: 64 * 1024,
  cooldownMs: 30_000,
  maxAgeMs: 600_000,
} as const;

/** Limits of one {@link createJwksKeySet}. */
export type JwksLimits = { readonly [K in keyof typeof JWKS_LIMITS]: number };

/** The key set could not be fetched (network, status, size, time or shape); no key is known yet. */
export class JwksUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwksUnavailableError';
  }
}

/** What {@link createJwksKeySet} is built from. */
export interface JwksKeySetOptions {
  readonly url: URL;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limits?: Partial<JwksLimits>;
  readonly fetch?: typeof fetch;
}

/** A key resolver for `jwtVerify`, answering from the cached set of the host's public keys. */
export type JwksGetKey = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/**
 * The host's JSON Web Key Set at `url`: fetched on first use, kept for `maxAgeMs` (then fetched
 * again while tokens go on checking against it), fetched again
 * when a token names a `kid` the cache lacks (at most once per `cooldownMs`), with concurrent
 * misses sharing one fetch. A failed fetch keeps the keys already known. Once a set is known, a
 * fetch in flight never delays a token whose key is in it.
 */
export function createJwksKeySet(options: JwksKeySetOptions): JwksGetKey {
  const limits: JwksLimits = { ...JWKS_LIMITS, ...options.limits };
  const { clock, url } = options;
  let local: ReturnType<typeof createLocalJWKSet> | null = null;
  let fetchedAtMs = Number.NEGATIVE_INFINITY;
  let attemptedAtMs = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | null = null;
  /** Bumped by every fetched set, so a miss can tell whether a newer set came in meanwhile. */
  let generation = 0;
  const coolingDown = () => clock.nowMs() - attemptedAtMs < limits.cooldownMs;

  const refresh = (): Promise<void> => {
    pending ??= (async () => {
      attemptedAtMs = clock.nowMs();
      try {
        local = createLocalJWKSet((await fetchKeySet(url, limits, options.fetch ?? fetch)) as never);
        fetchedAtMs = clock.nowMs();
        generation += 1;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        options.logger.warn('JWKS fetch failed; keeping the keys already known', { url: url.href, reason });
      } finally {
        pending = null;
      }
    })();
    return pending;
  };

  return async (header, token) => {
    // Only a cache without any key waits for a fetch in flight. With keys known, a token checks
    // against them at once: a refetch that someone's made-up `kid` started (up to `timeoutMs` on
    // a slow endpoint) must not stall every other user's request. A miss still waits, below.
    if (pending && local === null) await pending;
    else if (local === null && !coolingDown()) await refresh();
    // A set past its age is fetched again beside this token, which checks against the keys known:
    // waiting held it up to `timeoutMs` on a slow endpoint (again each cooldown while it failed,
    // the set staying as old), and tokens arriving meanwhile already use the known keys.
    else if (local !== null && clock.nowMs() - fetchedAtMs >= limits.maxAgeMs && !coolingDown()) void refresh();
    if (local === null) throw new JwksUnavailableError('no key set fetched yet');
    const seen = generation;
    try {
      return await local(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A miss while another miss is already fetching waits for that fetch instead of refusing.
      if (pending) await pending;
      else if (generation === seen && !coolingDown()) await refresh();
      if (generation === seen) throw error;
      return local(header, token);
    }
  };
}

/** GETs the key set within the time and size limits; redirects are not followed. */
async function fetchKeySet(url: URL, limits: JwksLimits, fetchImpl: typeof fetch): Promise<unknown> {
  const response = await fetchImpl(url, {
    signal: AbortSignal.timeout(limits.timeoutMs),
    redirect: 'manual',
    headers: { accept: 'application/jwk-set+json, application/json' },
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new JwksUnavailableError(`the key set answered HTTP ${response.status}`);
  }
  const text = await readBoundedText(response, limits.maxBytes);
  if (text === null) throw new JwksUnavailableError(`the key set is larger than ${limits.maxBytes} bytes`);
  return JSON.parse(text);
}
