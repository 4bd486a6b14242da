import { UnsecuredJWT } from 'jose';
import { OWNER_CLAIM_MAX_CHARS } from '../../src/auth/jwt-verifier.js';
import { HOST_AUDIENCE, HOST_ISSUER, makeHostKeys, signHostToken } from '../support/host-tokens.js';
import type { HostTokenApp } from './host-token-app.js';

/** A token the server must refuse, and the reason its log line gives. */
export interface RefusedToken {
  readonly name: string;
  readonly token: string;
  readonly reason: string;
}

/**
 * One token per refusal case of the contract, signed for `app`'s host at the app's current
 * time: every one must be UNAUTHENTICATED over HTTP and close 4403 at `connection_init`.
 */
export async function refusedTokens(app: HostTokenApp): Promise<RefusedToken[]> {
  const now = Math.floor(app.clock.nowMs() / 1000);
  const impostor = await makeHostKeys('ES256', app.host.kid);
  const stranger = await makeHostKeys('ES256', 'kid-nobody-published');
  const publicPemAsSecret = {
    alg: 'HS256',
    secret: new TextEncoder().encode(app.host.publicPem),
    kid: app.host.kid,
  } as const;
  const unsigned = new UnsecuredJWT({ sub: 'user-1', iss: HOST_ISSUER, aud: HOST_AUDIENCE })
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .encode();
  return [
    { name: 'expired', token: await app.token({ iat: now - 120, exp: now - 60 }), reason: 'expired' },
    { name: 'not yet valid', token: await app.token({ nbf: now + 60 }), reason: 'not yet valid' },
    {
      name: 'too long-lived',
      token: await app.token({ iat: now, exp: now + 3_601 }),
      reason: 'lifetime above maxLifetimeSeconds',
    },
    { name: 'from another issuer', token: await app.token({ iss: 'https://evil.example' }), reason: 'wrong issuer' },
    { name: 'for another audience', token: await app.token({ aud: 'other-service' }), reason: 'wrong audience' },
    { name: 'signed by another key under the same kid', token: await app.token({}, impostor), reason: 'bad signature' },
    { name: 'unsigned (alg none)', token: unsigned, reason: 'algorithm not allowed' },
    {
      name: 'HS256 with the public key as the secret',
      token: await signHostToken(publicPemAsSecret, {}, app.clock.nowMs()),
      reason: 'algorithm not allowed',
    },
    { name: 'without its owner claim', token: await app.token({ sub: undefined }), reason: 'unusable sub claim' },
    { name: 'with an empty owner claim', token: await app.token({ sub: '' }), reason: 'unusable sub claim' },
    {
      name: 'with an owner claim over the limit',
      token: await app.token({ sub: 'u'.repeat(OWNER_CLAIM_MAX_CHARS + 1) }),
      reason: 'unusable sub claim',
    },
    {
      name: 'naming a kid the host never published',
      token: await app.token({}, stranger),
      reason: 'no key in the key set for its kid',
    },
  ];
}
