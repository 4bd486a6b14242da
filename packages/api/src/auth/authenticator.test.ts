import { FakeClock, MemoryLogger } from '@agent-teams/testkit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type HostKeyPair, hostJwtSettings, makeHostKeys, signHostToken } from '../../test/support/host-tokens.js';
import { createAuthenticator, MAX_BEARER_CHARS } from './authenticator.js';

let host: HostKeyPair;
const clock = new FakeClock();
const nowS = Math.floor(clock.nowMs() / 1000);

beforeAll(async () => {
  host = await makeHostKeys('ES256');
});

const build = (tokens = new Map([['tok-admin', 'admin']])) => {
  const logger = new MemoryLogger();
  const auth = createAuthenticator({
    tokens,
    jwt: hostJwtSettings({ kind: 'publicKey', key: host.publicKey }),
    clock,
    logger,
  });
  return { auth, logger };
};

describe('createAuthenticator', () => {
  it('resolves static tokens (no expiry) beside host-signed tokens (expiry from exp)', async () => {
    const { auth } = build();
    expect(await auth.authenticate('Bearer tok-admin')).toEqual({ owner: 'admin', expiresAtMs: null });
    expect(await auth.authenticate('bearer tok-admin')).toEqual({ owner: 'admin', expiresAtMs: null });
    expect(await auth.authenticate('Bearer tok-admin extra')).toBeNull();
    expect(await auth.authenticate('tok-admin')).toBeNull();
    const token = await signHostToken(host, { sub: 'user-9', exp: nowS + 60 }, clock.nowMs());
    expect(await auth.authenticate(`bearer ${token}`)).toEqual({ owner: 'user-9', expiresAtMs: (nowS + 65) * 1000 });
  });

  it('answers null without a log line for no header, another scheme, or a token that is no JWT', async () => {
    const { auth, logger } = build();
    // Unknown non-JWT tokens may be member-run tokens, which the endpoint resolves next.
    for (const value of [null, 'Basic abc', 'Bearer tok-unknown', 'Bearer mrt_abc', 'Bearer a.b']) {
      expect(await auth.authenticate(value)).toBeNull();
    }
    expect(logger.entries).toHaveLength(0);
  });

  it('logs the reason of every refusal for operators, never the token', async () => {
    const { auth, logger } = build();
    const expired = await signHostToken(host, { iat: nowS - 100, exp: nowS - 50 }, clock.nowMs());
    const wrongAudience = await signHostToken(host, { aud: 'other' }, clock.nowMs());
    for (const value of [`Bearer ${expired}`, `Bearer ${wrongAudience}`, 'Bearer e30.e30.x']) {
      expect(await auth.authenticate(value)).toBeNull();
    }
    expect(logger.at('warn').map((entry) => entry.fields.reason)).toEqual(['expired', 'wrong audience', 'malformed']);
    const logged = JSON.stringify(logger.entries);
    for (const secret of [expired, wrongAudience, 'e30.e30.x']) expect(logged).not.toContain(secret);
  });

  it("writes a refusal to the request's own logger when one is given (its requestId)", async () => {
    const { auth, logger } = build();
    const request = new MemoryLogger();
    const tooLong = `Bearer ${'a'.repeat(MAX_BEARER_CHARS + 1)}`;
    expect(await auth.authenticate('Bearer e30.e30.x', request)).toBeNull();
    expect(await auth.authenticate(tooLong, request)).toBeNull();
    expect(request.at('warn').map((entry) => entry.message)).toEqual(['bearer token refused', 'bearer token refused']);
    expect(logger.entries).toHaveLength(0);
  });

  it('refuses every JWT, silently, when auth.jwt is not set', async () => {
    const logger = new MemoryLogger();
    const auth = createAuthenticator({ tokens: new Map(), clock, logger });
    const token = await signHostToken(host, {}, clock.nowMs());
    expect(await auth.authenticate(`Bearer ${token}`)).toBeNull();
    expect(logger.entries).toHaveLength(0);
  });

  it(`looks at tokens up to ${MAX_BEARER_CHARS} characters only`, async () => {
    const { auth, logger } = build();
    for (const length of [MAX_BEARER_CHARS, MAX_BEARER_CHARS + 1]) {
      expect(await auth.authenticate(`Bearer a.b.${'c'.repeat(length - 4)}`)).toBeNull();
    }
    expect(logger.at('warn').map((entry) => entry.fields.reason)).toEqual([
      'malformed',
      `longer than ${MAX_BEARER_CHARS} characters`,
    ]);
  });

  it('re-checks a socket credential: a JWT until its expiry, a static token while it is configured', async () => {
    const tokens = new Map([['tok-admin', 'admin']]);
    const { auth } = build(tokens);
    const local = new FakeClock(clock.nowMs());
    const timed = createAuthenticator({ tokens, jwt: null, clock: local, logger: new MemoryLogger() });
    const jwt = { owner: 'user-1', expiresAtMs: local.nowMs() + 1_000 } as const;
    expect(timed.stillValid('Bearer anything', jwt as never)).toBe(true);
    expect(timed.msLeft(jwt as never)).toBe(1_000);
    local.advance(999);
    expect(timed.stillValid('Bearer anything', jwt as never)).toBe(true);
    local.advance(1);
    expect(timed.stillValid('Bearer anything', jwt as never)).toBe(false);
    const admin = await auth.authenticate('Bearer tok-admin');
    expect(admin && auth.stillValid('Bearer tok-admin', admin)).toBe(true);
    expect(admin && auth.msLeft(admin)).toBeNull();
    tokens.delete('tok-admin');
    expect(admin && auth.stillValid('Bearer tok-admin', admin)).toBe(false);
  });

  it('never throws and never admits arbitrary bytes (fuzz)', async () => {
    const { auth } = build();
    const segment = fc.string({ unit: 'binary', maxLength: 60 });
    const jwtShaped = fc.tuple(segment, segment, segment).map((parts) => parts.join('.'));
    const base64Shaped = fc
      .tuple(fc.json(), fc.json(), fc.string())
      .map((parts) => parts.map((part) => Buffer.from(part).toString('base64url')).join('.'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary' }), jwtShaped, base64Shaped), async (value) => {
        expect(await auth.authenticate(`Bearer ${value}`)).toBeNull();
        expect(await auth.authenticate(value)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});
