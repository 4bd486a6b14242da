import { FakeClock, MemoryLogger } from '@agent-teams/testkit';
import { UnsecuredJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HOST_AUDIENCE,
  HOST_ISSUER,
  HOST_SECRET,
  type HostKeyPair,
  hostJwtSettings,
  makeHostKeys,
  signHostToken,
} from '../../test/support/host-tokens.js';
import type { JwtSettings } from './jwt-key.js';
import { createJwtVerifier, OWNER_CLAIM_MAX_CHARS } from './jwt-verifier.js';

const clock = new FakeClock();
const nowS = Math.floor(clock.nowMs() / 1000);
let es256: HostKeyPair;
let rs256: HostKeyPair;
let eddsa: HostKeyPair;

beforeAll(async () => {
  [es256, rs256, eddsa] = await Promise.all([makeHostKeys('ES256'), makeHostKeys('RS256'), makeHostKeys('EdDSA')]);
});

const verifierFor = (settings: JwtSettings) => createJwtVerifier({ settings, clock, logger: new MemoryLogger() });
const publicKeyOf = (pair: HostKeyPair) => hostJwtSettings({ kind: 'publicKey', key: pair.publicKey });
const secretKey = { kind: 'secret', secret: new TextEncoder().encode(HOST_SECRET) } as const;

describe('createJwtVerifier', () => {
  it.each(['ES256', 'RS256', 'EdDSA'] as const)(
    'accepts a valid %s token: owner from sub, authority until exp plus tolerance',
    async (alg) => {
      const pair = { ES256: es256, RS256: rs256, EdDSA: eddsa }[alg];
      const token = await signHostToken(pair, { sub: 'user-42', exp: nowS + 600 }, clock.nowMs());
      expect(await verifierFor(publicKeyOf(pair))(token)).toEqual({
        ok: true,
        owner: 'user-42',
        expiresAtMs: (nowS + 600 + 5) * 1000,
      });
    },
  );

  it('accepts an HS256 token signed with the shared secret', async () => {
    const token = await signHostToken({ alg: 'HS256', secret: secretKey.secret }, {}, clock.nowMs());
    expect(await verifierFor(hostJwtSettings(secretKey))(token)).toMatchObject({ ok: true, owner: 'user-1' });
  });

  it('takes the owner from the configured claim', async () => {
    const token = await signHostToken(es256, { extra: { user_id: 'u-7' } }, clock.nowMs());
    const verify = verifierFor(hostJwtSettings({ kind: 'publicKey', key: es256.publicKey }, { ownerClaim: 'user_id' }));
    expect(await verify(token)).toMatchObject({ ok: true, owner: 'u-7' });
  });

  it.each([
    ['expired', { exp: nowS - 6 }, 'expired'],
    ['expired beyond the tolerance by one second', { iat: nowS - 100, exp: nowS - 5 }, 'expired'],
    ['not yet valid', { nbf: nowS + 6 }, 'not yet valid'],
    ['issued in the future', { iat: nowS + 6, exp: nowS + 60 }, 'issued in the future'],
    ['longer-lived than maxLifetimeSeconds', { iat: nowS, exp: nowS + 3_601 }, 'lifetime above maxLifetimeSeconds'],
    ['without exp', { exp: null }, 'missing exp claim'],
    ['without iat', { iat: null, exp: nowS + 60 }, 'missing iat claim'],
    ['from another issuer', { iss: 'https://evil.example' }, 'wrong issuer'],
    ['for another audience', { aud: 'another-service' }, 'wrong audience'],
  ])('refuses a token %s', async (_name, claims, reason) => {
    const token = await signHostToken(es256, claims, clock.nowMs());
    expect(await verifierFor(publicKeyOf(es256))(token)).toEqual({ ok: false, reason });
  });

  it('accepts the edges: exp within the tolerance, nbf within it, lifetime exactly the maximum', async () => {
    const verify = verifierFor(publicKeyOf(es256));
    for (const claims of [
      { iat: nowS - 100, exp: nowS - 4 },
      { nbf: nowS + 5 },
      { iat: nowS + 5, exp: nowS + 60 },
      { iat: nowS, exp: nowS + 3_600 },
    ]) {
      expect(await verify(await signHostToken(es256, claims, clock.nowMs()))).toMatchObject({ ok: true });
    }
  });

  it('refuses a token signed by another key of the same algorithm', async () => {
    const other = await makeHostKeys('ES256');
    const token = await signHostToken(other, {}, clock.nowMs());
    expect(await verifierFor(publicKeyOf(es256))(token)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('refuses an unsigned token (alg none), even with valid claims', async () => {
    const token = new UnsecuredJWT({ sub: 'user-1', iss: HOST_ISSUER, aud: HOST_AUDIENCE })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 60)
      .encode();
    expect(await verifierFor(publicKeyOf(es256))(token)).toEqual({ ok: false, reason: 'algorithm not allowed' });
    expect(await verifierFor(hostJwtSettings(secretKey))(token)).toEqual({
      ok: false,
      reason: 'algorithm not allowed',
    });
  });

  it('refuses HS256 signed with the public key as the secret (algorithm confusion)', async () => {
    const forged = await signHostToken(
      { alg: 'HS256', secret: new TextEncoder().encode(rs256.publicPem) },
      {},
      clock.nowMs(),
    );
    expect(await verifierFor(publicKeyOf(rs256))(forged)).toEqual({ ok: false, reason: 'algorithm not allowed' });
    // Even a hand-built allow-list naming HS256 cannot make a public key act as an HMAC secret.
    const careless = hostJwtSettings({ kind: 'publicKey', key: rs256.publicKey }, { algorithms: ['RS256', 'HS256'] });
    expect(await verifierFor(careless)(forged)).toEqual({ ok: false, reason: 'key does not fit the algorithm' });
  });

  it('refuses an RS256 token when only HS256 is configured', async () => {
    const token = await signHostToken(rs256, {}, clock.nowMs());
    expect(await verifierFor(hostJwtSettings(secretKey))(token)).toEqual({
      ok: false,
      reason: 'algorithm not allowed',
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['a number', 42],
    ['an object', { id: 'x' }],
    ['a lone surrogate', 'user-\ud800'],
    ['holding U+0000', 'nul\u0000owner'],
    ['holding a line break', 'user\nforged'],
    ['holding DEL', 'user\u007f'],
  ])('refuses an owner claim that is %s', async (_name, sub) => {
    const token = await signHostToken(es256, { sub }, clock.nowMs());
    expect(await verifierFor(publicKeyOf(es256))(token)).toEqual({ ok: false, reason: 'unusable sub claim' });
  });

  describe.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji', '🦊'],
  ])('the owner claim limit in %s', (_name, unit) => {
    it(`accepts ${OWNER_CLAIM_MAX_CHARS - 1} and ${OWNER_CLAIM_MAX_CHARS} characters, refuses ${OWNER_CLAIM_MAX_CHARS + 1}`, async () => {
      const verify = verifierFor(publicKeyOf(es256));
      for (const length of [OWNER_CLAIM_MAX_CHARS - 1, OWNER_CLAIM_MAX_CHARS, OWNER_CLAIM_MAX_CHARS + 1]) {
        const sub = unit.repeat(length);
        const verdict = await verify(await signHostToken(es256, { sub }, clock.nowMs()));
        expect(verdict).toEqual(
          length <= OWNER_CLAIM_MAX_CHARS
            ? { ok: true, owner: sub, expiresAtMs: expect.any(Number) }
            : { ok: false, reason: 'unusable sub claim' },
        );
      }
    });
  });

  it(`refuses ${OWNER_CLAIM_MAX_CHARS - 1} characters plus a lone surrogate`, async () => {
    const token = await signHostToken(es256, { sub: `${'a'.repeat(OWNER_CLAIM_MAX_CHARS - 1)}\udc00` }, clock.nowMs());
    expect(await verifierFor(publicKeyOf(es256))(token)).toEqual({ ok: false, reason: 'unusable sub claim' });
  });

  it('refuses what is not a JWT at all', async () => {
    const verify = verifierFor(publicKeyOf(es256));
    for (const token of ['abc', 'a.b.c', '..', `${'x'.repeat(20)}.e30.`]) {
      expect(await verify(token)).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
